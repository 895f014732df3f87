#!/usr/bin/env bash
# Acceptance check (issue 17): from a clone with no .tools, no node_modules and no .data,
# `npm start` alone reaches the ready line on the first try, finds a file by meaning (scripts/first-find.ts), then
# Ctrl-C stops everything.
# Reused from this checkout, to keep CI time sane: the Go-built binaries (.tools/bin is copied in,
# as a CI cache would restore it; FRESH_CLONE_BUILD_GO=1 builds them instead) and npm's download
# cache (~/.npm). Node 24 and node_modules are installed by `npm start` itself.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${FRESH_CLONE_PORT_BASE:-$(( ${TEST_PORT_BASE:-15400} + 80 ))}"
work="$(mktemp -d)"
chmod 755 "$work" # as root, PostgreSQL runs as "postgres", which must enter the clone
pgid=""
cleanup() {
  [ -n "$pgid" ] && kill -KILL -- "-$pgid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

git clone -q "$src" "$work/clone"
cd "$work/clone"
git -C "$src" diff --quiet HEAD || echo "[fresh-clone] note: uncommitted changes in $src are not in the clone"
if [ -z "${FRESH_CLONE_BUILD_GO:-}" ] && [ -x "$src/.tools/bin/temporal" ] && [ -x "$src/.tools/bin/versitygw" ]; then
  mkdir -p .tools/bin && cp "$src/.tools/bin/temporal" "$src/.tools/bin/versitygw" .tools/bin/
  echo "[fresh-clone] reusing the Go-built temporal and versitygw from $src/.tools/bin"
fi
for d in node_modules .data .tools/node24; do [ ! -e "$d" ] || { echo "[fresh-clone] $d exists in the clone"; exit 1; }; done

export PORT=$base EMBEDDED_PG_PORT=$((base + 1)) TEMPORAL_PORT=$((base + 2)) TEMPORAL_UI_PORT=$((base + 3)) \
  S3_PORT=$((base + 4)) TEMPORAL_HTTP_PORT=$((base + 5)) TEMPORAL_METRICS_PORT=$((base + 6)) CONTENT_PORT=$((base + 7)) TEMPORAL_TASK_QUEUE="fresh-clone-$base"
unset DATABASE_URL TEMPORAL_ADDRESS TEMPORAL_UI_URL S3_ENDPOINT PUBLIC_BASE_URL DATA_DIR
log="$work/start.log"
started=$(date +%s)
# Its own process group, like a terminal's foreground job, so Ctrl-C can be sent the same way.
setsid npm start >"$log" 2>&1 &
pgid=$!
deadline=$(( started + ${FRESH_CLONE_TIMEOUT_S:-900} ))
until grep -q '^ready in' "$log"; do
  if ! kill -0 "$pgid" 2>/dev/null || [ "$(date +%s)" -gt "$deadline" ]; then
    echo "[fresh-clone] FAIL: no ready line; the launcher's output:"; cat "$log"; exit 1
  fi
  sleep 1
done
echo "[fresh-clone] $(grep '^ready in' "$log") — $(( $(date +%s) - started )) s after npm start, npm ci and Node 24 included"
grep -E '^\[start\]|installing' "$log" | sed 's/^/[fresh-clone]   /'
curl -fsS "http://127.0.0.1:$base/readyz" >/dev/null
# Find out of the box (issue 53): a question in other words than the file's is answered by the embedded model.
bash scripts/with-node.sh node --import tsx scripts/first-find.ts "http://127.0.0.1:$base"

kill -INT -- "-$pgid"
for _ in $(seq 1 60); do kill -0 "$pgid" 2>/dev/null || break; sleep 1; done
if kill -0 "$pgid" 2>/dev/null; then echo "[fresh-clone] FAIL: still running 60 s after Ctrl-C"; exit 1; fi
pgid=""
for p in $(seq "$base" $((base + 7))); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "[fresh-clone] FAIL: port $p still open after Ctrl-C"; exit 1; fi
done
echo "[fresh-clone] PASS: ready on the first try, and Ctrl-C left no port open"
