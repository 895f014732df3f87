import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { createTenant } from '../helpers/tenant.js';

/**
 * The SDK as a user installs it: built to JavaScript with declarations, packed with `npm pack`, installed from the
 * tarball into an empty project, then a plain `.mjs` script runs against the stack (no tsx) and `tsc --noEmit`
 * checks a TypeScript file that leaves every optional parameter out.
 */
const run = promisify(execFile);
const root = path.resolve('.');
const pkg = path.join(root, 'packages/client');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
let api: TestApi;
let work: string;

beforeAll(async () => {
  api = await startTestApi();
  work = mkdtempSync(path.join(tmpdir(), 'agent-drive-sdk-'));
}, 120_000);
afterAll(async () => {
  await api?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the SDK tarball', () => {
  it('installs into an empty project; a plain .mjs script and tsc --noEmit work against it', async () => {
    // Built from the repository's sources into a package folder of its own, so the repository's dist/ (git-ignored)
    // never shadows the sources; the tarball holds what `files` names: dist, bin, README.
    const copy = path.join(work, 'client');
    mkdirSync(copy);
    for (const f of ['package.json', 'README.md']) copyFileSync(path.join(pkg, f), path.join(copy, f));
    await run('cp', ['-r', path.join(pkg, 'bin'), copy]);
    await run(process.execPath, [
      tsc,
      '-p',
      path.join(pkg, 'tsconfig.build.json'),
      '--outDir',
      path.join(copy, 'dist'),
    ]);
    copyFileSync(path.join(pkg, 'src/schema.d.ts'), path.join(copy, 'dist/schema.d.ts'));
    await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { cwd: copy });
    const tarball = path.join(
      work,
      readdirSync(work).find((f) => f.endsWith('.tgz'))!,
    );

    const app = path.join(work, 'app');
    mkdirSync(app);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
    await run('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], {
      cwd: app,
      timeout: 240_000,
    });

    const tenant = await createTenant(api.ctx);
    writeFileSync(
      path.join(app, 'app.mjs'),
      `import { Drive } from '@agent-drive/client';
const drive = new Drive({ baseUrl: process.argv[2], credential: { apiKey: process.argv[3] } });
await drive.put('sdk/hello.md', 'hello v1');
const v2 = await drive.put('sdk/hello.md', 'hello v2');
await drive.restore(v2.art_id, { version: 1 });
const listed = await drive.list({ prefix: 'sdk/' });
const moved = await drive.move('sdk/hello.md', 'sdk/hi.md');
console.log(JSON.stringify({ text: await drive.text('sdk/hi.md'), files: listed.items.length, path: moved.path,
  versions: (await drive.versions('sdk/hi.md')).items.length }));
`,
    );
    const out = await run(process.execPath, ['app.mjs', api.url, tenant.apiKey], { cwd: app });
    expect(JSON.parse(out.stdout)).toEqual({ text: 'hello v1', files: 1, path: 'sdk/hi.md', versions: 3 });

    writeFileSync(
      path.join(app, 'check.ts'),
      `import { Drive, type ArtifactOut, type SearchPage, type FindPage } from '@agent-drive/client';
const drive = new Drive({ baseUrl: 'http://localhost:8080' });
export const put: Promise<ArtifactOut> = drive.put('a.md', 'a');
export const search: Promise<SearchPage> = drive.search('words');
export const find: Promise<FindPage> = drive.find('words');
export const low = drive.client.api.GET('/v0/search', { params: { query: { q: 'words' } } });
`,
    );
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2023',
          strict: true,
          noEmit: true,
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
    mkdirSync(path.join(app, 'node_modules/@types'), { recursive: true });
    symlinkSync(path.join(root, 'node_modules/@types/node'), path.join(app, 'node_modules/@types/node'));
    await run(process.execPath, [tsc, '-p', app], { cwd: app });
  });
});
