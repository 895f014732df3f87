#!/usr/bin/env bash
# `npm run lint`: import boundaries and cycles (dependency-cruiser), formatting (Prettier), type-checked ESLint rules, tsc.
# Runs all three and fails if any failed, so one run shows every finding. Rules: docs/decisions.md, "Lint".
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
echo "== dependency-cruiser (src, packages)"
depcruise src packages --config .dependency-cruiser.cjs || status=1
echo "== prettier (printWidth 120)"
prettier --check --log-level warn 'src/**/*.{ts,mjs}' 'test/**/*.ts' 'bench/**/*.ts' 'scripts/**/*.ts' 'packages/*/src/**/*.ts' 'packages/*/bin/*.js' '*.ts' eslint.config.js || status=1
echo "== eslint"
eslint --max-warnings 0 . || status=1
echo "== door calls (one domain operation per REST handler, MCP tool and web page or form)"
node scripts/count-door-calls.cjs >/dev/null || status=1
echo "== tsc --noEmit"
tsc --noEmit -p . || status=1
exit $status
