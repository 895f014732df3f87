#!/usr/bin/env node
// The agent-drive command line. Inside this repository (the sources are here) it runs the TypeScript through tsx, so
// nothing needs building; an installed package (npm pack: dist/ only) runs its built JavaScript (docs/decisions/client.md).
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else {
  // Built by `npm pack` (prepack); named by URL, as nothing is built inside the repository.
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}
