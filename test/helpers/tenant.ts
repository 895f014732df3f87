import type { AppContext } from '../../src/platform/context.js';
import { mintApiKey } from '../../src/identity/api-keys.js';
import { createDrive } from '../../src/drives/drives.js';

/** A fresh claimed drive with an API key, for suites that need an authenticated caller. */
export async function createTenant(
  ctx: AppContext,
  email = `owner-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`,
) {
  const em = ctx.orm.em.fork();
  const drive = await createDrive(em, { ownerEmail: email });
  const { key } = await mintApiKey(em, drive.id, 'test');
  return { driveId: drive.id, email, apiKey: key, auth: { authorization: `Bearer ${key}` } };
}
