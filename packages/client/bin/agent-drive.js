#!/usr/bin/env node
// The agent-drive command line. It runs the TypeScript sources through tsx, so the package needs no build
// step inside this repository (docs/decisions/client.md).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
