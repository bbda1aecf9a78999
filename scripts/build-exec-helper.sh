#!/usr/bin/env bash
# Builds the exec helper (src/process/exec-helper/quire-exec.c) into dist/bin/quire-exec, where
# src/process/limits.ts looks for it both from dist/ and from src/ under vitest. Static when libc.a
# is installed (libc6-dev), else dynamic. Rebuilt only when the source, the flags or the compiler
# changed (a stamp beside the binary). Without a C compiler it builds nothing and says so: the service
# then starts engines through util-linux's setpriv/unshare/prlimit, slower but the same limits.
# Run by scripts/setup.sh (so by the Dockerfile and the test command) and by the tests' global setup.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[exec-helper] %s\n' "$*" >&2; }

src=src/process/exec-helper/quire-exec.c
out=dist/bin/quire-exec
stamp=$out.sha256
flags=(-std=gnu11 -O2 -Wall -Wextra -s)

cc=$(command -v cc || command -v gcc || true)
if [ -z "$cc" ]; then
  log "no C compiler; engines start through util-linux's setpriv/prlimit (docs/operations.md)"
  exit 0
fi

sum=$({ cat "$src"; echo "${flags[*]}"; "$cc" --version | head -n 1; } | sha256sum | cut -d' ' -f1)
if [ -x "$out" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then exit 0; fi

mkdir -p "$(dirname "$out")"
# Built beside and renamed into place: a service starting engines meanwhile sees the old binary or
# the new one, never half of one (and rename works while the old one is being executed).
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
if "$cc" "${flags[@]}" -static -o "$tmp" "$src" 2>/dev/null; then
  log "built $out (static)"
else
  "$cc" "${flags[@]}" -o "$tmp" "$src"
  log "built $out (dynamic: no static libc here)"
fi
chmod 0755 "$tmp"
mv -f "$tmp" "$out"
echo "$sum" >"$stamp"
