#!/usr/bin/env bash
# npm run test:contract: installs schemathesis (PyPI) into .tools/venv when missing, then runs the contract test.
set -euo pipefail
cd "$(dirname "$0")/.."
SCHEMATHESIS_VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
if ! .tools/venv/bin/schemathesis --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "installing schemathesis $SCHEMATHESIS_VERSION into .tools/venv"
  python3 -m venv .tools/venv || { apt-get install -y -qq python3-venv && python3 -m venv .tools/venv; }
  .tools/venv/bin/pip install -q "schemathesis==$SCHEMATHESIS_VERSION"
fi
exec bash scripts/with-node.sh vitest run --config vitest.contract.config.ts "$@"
