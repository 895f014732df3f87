#!/usr/bin/env bash
# npm run test:contract: installs schemathesis (PyPI) into .tools/venv when missing, then runs the contract test.
set -euo pipefail
cd "$(dirname "$0")/.."
SCHEMATHESIS_VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
# The newest Python at hand: Hypothesis under 3.11 now and then trips over a CPython AST bug.
PY=python3
for v in python3.13 python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3; do if command -v "$v" >/dev/null && "$v" -c 'import venv, ensurepip' 2>/dev/null; then PY="$v"; break; fi; done
if ! .tools/venv/bin/schemathesis --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "installing schemathesis $SCHEMATHESIS_VERSION into .tools/venv ($($PY --version))"
  rm -rf .tools/venv
  "$PY" -m venv .tools/venv || { apt-get install -y -qq python3-venv && python3 -m venv .tools/venv; }
  .tools/venv/bin/pip install -q "schemathesis==$SCHEMATHESIS_VERSION"
fi
exec bash scripts/with-node.sh vitest run --config vitest.contract.config.ts "$@"
