import { z } from 'zod';
import { grantCreateInSchema, shareCreateInSchema } from '../shapes/sharing-schemas.js';
import { grantOut, shareMintOut } from '../shapes/sharing.js';
import { createGrant } from '../sharing/grants.js';
import { mintShare } from '../sharing/shares.js';
import { actorArg, defineTool, writes, type ToolEnv, type ToolSet } from './tool-kit.js';

/**
 * Sharing for agents: a link anyone can open (share) or a role for a named principal (grant); the same operations as
 * /v0/shares and /v0/grants.
 */
export function registerSharingTools(server: ToolSet, env: ToolEnv): void {
  const { config } = env.app;

  defineTool(
    server,
    env,
    'share',
    {
      title: 'Mint a share link',
      description:
        'A link giving its role (default viewer) on an artifact or folder to whoever opens it; expiry (default 7 ' +
        'days), password, label optional. The url is shown once; for a person use grant.',
      input: { ...shareCreateInSchema.shape, actor: actorArg },
      annotations: writes(false, false),
      budget: 'write',
    },
    async (args, rc) => {
      const minted = shareMintOut(
        config,
        await mintShare(rc, {
          resource: args.resource,
          role: args.role,
          expiresIn: args.expires_in,
          password: args.password,
          label: args.label,
        }),
      );
      return { structured: minted, text: `Share link (${minted.role}) on ${minted.resource_id}: ${minted.url}` };
    },
  );

  defineTool(
    server,
    env,
    'grant',
    {
      title: 'Grant a role',
      description:
        'Gives a principal (user by id or email, agent aid_, org, or anyone) a role on an artifact or folder (and all ' +
        'under it); an existing grant is returned. expires_in seconds (omitted: permanent).',
      input: {
        ...grantCreateInSchema.shape,
        // Closed like the arguments themselves: a misspelled principal field is refused, not dropped.
        principal: z.strictObject(grantCreateInSchema.shape.principal.shape),
        actor: actorArg,
      },
      annotations: writes(false, true),
      budget: 'write',
    },
    async (args, rc) => {
      const grant = grantOut(
        await createGrant(rc, {
          resource: args.resource,
          principal: args.principal,
          role: args.role,
          expiresIn: args.expires_in,
        }),
      );
      return {
        structured: grant,
        text: `Granted ${grant.role} on ${grant.resource_id} to ${grant.principal_type}${grant.principal_id ? ` ${grant.principal_id}` : grant.principal_email ? ` ${grant.principal_email}` : ''}`,
      };
    },
  );
}
