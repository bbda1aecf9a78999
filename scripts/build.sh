#!/usr/bin/env bash
# Builds dist/: the Python drivers copied beside their modules, and the TypeScript, only when what it is made from changed since the last build (a stamp
# of a hash of src/, the tsconfig files, package-lock.json and the Node version, as build-helpers.sh
# keeps for the native helpers), after the native helpers. So a second start compiles nothing.
# Then the web app (scripts/build-web.sh, with its own stamp).
# Run by scripts/setup.sh (so by scripts/serve.sh, the Dockerfile and the test command) and by the
# tests' global setup.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[build] %s\n' "$*" >&2; }

bash scripts/build-helpers.sh
# The Python drivers, which dist/ loads from beside its modules (a no-op when they are already there).
node scripts/copy-python.mjs

sum=$({ find src -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
  sha256sum tsconfig*.json package-lock.json; node --version; } | sha256sum | cut -d' ' -f1)
stamp=dist/.quire-build-sha256
if [ -x dist/cli/main.js ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
  log "dist/ is up to date"
else
  log "compiling TypeScript"
  # A build that fails half-way must not look up to date on the next run.
  rm -f "$stamp"
  npx --no-install tsc -p tsconfig.build.json
  chmod +x dist/cli/main.js
  echo "$sum" >"$stamp"
fi

bash scripts/build-web.sh
