#!/usr/bin/env bash
# Builds the web app (web/ → web/dist, served by Quire at /) only when what it is made from changed
# since the last build: a stamp of a hash of web/'s sources and lock file, the TypeScript SDK's
# sources it compiles in (clients/typescript/src) and the Node version, as build.sh keeps for dist/.
# Needs web/node_modules and clients/typescript/node_modules (scripts/setup.sh installs both).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[web] %s\n' "$*" >&2; }

if [ ! -d web/node_modules ] || [ ! -d clients/typescript/node_modules ]; then
  log "web/ dependencies are not installed (run scripts/setup.sh); the web app is not built"
  exit 0
fi
sum=$({ find web/src web/scripts clients/typescript/src -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
  sha256sum web/index.html web/package-lock.json web/vite.config.ts web/tsconfig.json; node --version; } |
  sha256sum | cut -d' ' -f1)
stamp=web/dist/.quire-build-sha256
if [ -f web/dist/index.html ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
  log "web/dist is up to date"
else
  log "building the web app"
  rm -f "$stamp"
  (cd web && npm run --silent build)
  echo "$sum" >"$stamp"
fi
