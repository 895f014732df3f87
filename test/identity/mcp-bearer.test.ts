import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../helpers/api.js';
import { bearerAuth } from '../../src/api/middleware/bearer.js';
import { errorHandler } from '../../src/api/middleware/errors.js';
import {
  accessTokenFor,
  bearer,
  registerAnonymous,
  startClaim,
  startIdentityApi,
  tokenRequest,
  uniqueEmail,
  WebClient,
} from './helpers.js';

// The MCP transport accepts identity assertions as bearer (spec 5.3); this mounts the verifier the way MCP will.
let api: TestApi;
let mcpUrl: string;
let close: () => void;
beforeAll(async () => {
  api = await startIdentityApi();
  const app = express();
  app.get('/mcp-probe', bearerAuth(api.ctx, { kinds: ['api_key', 'identity_assertion', 'access_token'] }), (req, res) =>
    res.json(req.auth),
  );
  app.use(errorHandler(api.ctx.logger));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  mcpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp-probe`;
  close = () => server.close();
});
afterAll(async () => {
  close?.();
  await api?.close();
});

describe('identity assertions as an MCP bearer', () => {
  it('accepts a current assertion, bumps activity, and refuses it once rotated with the documented message', async () => {
    const reg = await registerAnonymous(api);
    const em = api.ctx.orm.em.fork();
    await em.execute(`update drives set last_activity_at = now() - interval '1 hour' where id = ?`, [reg.drive_id]);
    const ok = await fetch(mcpUrl, { headers: bearer(reg.identity_assertion) });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      driveId: reg.drive_id,
      identityId: reg.agent_identity_id,
      scope: 'pre_claim',
      kind: 'identity_assertion',
    });
    const [row] = await em.execute(
      `select extract(epoch from now() - last_activity_at) as age from drives where id = ?`,
      [reg.drive_id],
    );
    expect(Number(row.age)).toBeLessThan(60);
    // Access tokens and API keys still work there too.
    expect((await fetch(mcpUrl, { headers: bearer(await accessTokenFor(api, reg.identity_assertion)) })).status).toBe(
      200,
    );

    const claim = await startClaim(api, reg.claim_token);
    const web = new WebClient(api.url);
    await web.signUp(uniqueEmail('mcp'));
    await web.decide(claim.user_code, 'approve');
    const refused = await fetch(mcpUrl, { headers: bearer(reg.identity_assertion) });
    expect(refused.status).toBe(401);
    expect((await refused.json()).detail.error.message).toBe('Invalid or revoked agent credential');

    const renewed = await (await tokenRequest(api, { grant_type: 'claim', claim_token: reg.claim_token })).json();
    const after = await fetch(mcpUrl, { headers: bearer(renewed.identity_assertion) });
    expect(await after.json()).toMatchObject({ scope: 'full', kind: 'identity_assertion' });
  });
});
