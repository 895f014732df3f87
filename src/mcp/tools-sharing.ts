import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  grantCreateInSchema,
  grantOutSchema,
  shareCreateInSchema,
  shareMintOutSchema,
} from '../shapes/sharing-schemas.js';
import { grantOut, shareMintOut } from '../shapes/sharing.js';
import { createGrant } from '../sharing/grants.js';
import { mintShare } from '../sharing/shares.js';
import { actorArg, defineTool, writes, type ToolEnv } from './tool-kit.js';

/**
 * Sharing for agents: a link anyone can open (share) or a role for a named principal (grant); the same operations as
 * /v0/shares and /v0/grants.
 */
export function registerSharingTools(server: McpServer, env: ToolEnv): void {
  const { config } = env.app;

  defineTool(
    server,
    env,
    'share',
    {
      title: 'Mint a share link',
      description:
        'Mints a link that gives its role (viewer by default) on one artifact or folder (art_/fld_ id or path) to whoever opens it, ' +
        'with an optional expiry (expires_in seconds; by default 7 days for an agent) and password. The key and url are shown only now: ' +
        'keep them. To give a specific person or agent access, use grant; to make an artifact public for everyone, upload it with visibility="public".',
      input: { ...shareCreateInSchema.shape, actor: actorArg },
      output: shareMintOutSchema.shape,
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
        'Gives a principal (a user by id or email, an agent aid_ id, an org id, or anyone) a role (viewer, commenter, editor, manager) ' +
        'on an artifact or folder (art_/fld_ id or path; a folder grant covers everything under it). Returns the existing grant when there is ' +
        'one. Needs the manage capability (the drive owner has it). expires_in: seconds from now; omitted: permanent.',
      input: {
        ...grantCreateInSchema.shape,
        principal: grantCreateInSchema.shape.principal.describe('{type: user|agent|org|anyone, id?, email?}'),
        actor: actorArg,
      },
      output: grantOutSchema.shape,
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
