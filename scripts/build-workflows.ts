import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Pre-bundles workflow code so the worker starts without webpack at run time. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_PATH = path.join(root, 'dist', 'workflow-bundle.js');

export async function buildWorkflowBundle(): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.join(root, 'src', 'workflows', 'index.ts'),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  mkdirSync(path.dirname(BUNDLE_PATH), { recursive: true });
  writeFileSync(BUNDLE_PATH, code);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildWorkflowBundle();
  console.log(`workflow bundle written to ${path.relative(root, BUNDLE_PATH)}`);
}
