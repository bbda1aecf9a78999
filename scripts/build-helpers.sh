#!/usr/bin/env bash
# Builds the two native helpers and the veraPDF worker into dist/bin/, where the service looks for them both from dist/ and
# from src/ under vitest:
#   - quire-exec (src/process/exec-helper/quire-exec.c), the exec helper engines start through.
#     Static when libc.a is installed (libc6-dev), else dynamic. Without it engines start through
#     util-linux's setpriv/unshare/prlimit: slower, the same limits.
#   - quire-qpdf-forkserver (src/engines/qpdf/forkserver/*.c), which forks qpdf runs
#     instead of starting qpdf anew. Linked against libqpdf (libqpdf-dev), and only built when that
#     library is the installed qpdf's own version. Without it every qpdf run starts qpdf.
#   - verapdf/VeraWorker.class (src/engines/verapdf/VeraWorker.java), the long-lived JVM that
#     `validate` sends files to, compiled with javac against veraPDF's jars in /opt/quire-verapdf
#     (scripts/setup.sh installs both). Without them the verapdf engine is unavailable.
# Each is rebuilt only when its source, flags, compiler or library changed (a stamp beside it).
# Without a C compiler nothing is built and it says so (docs/operations.md).
# Run by scripts/setup.sh (so by the Dockerfile and the test command) and by the tests' global setup.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[helpers] %s\n' "$*" >&2; }

# The veraPDF worker: Java, so it needs javac and the jars, not a C compiler (built before the check
# for one). Compiled beside and renamed into place like the C helpers.
verapdf_jars=/opt/quire-verapdf/1.28.2
verapdf_out=dist/bin/verapdf
if command -v javac >/dev/null 2>&1 && [ -d "$verapdf_jars" ]; then
  sum=$({ cat src/engines/verapdf/VeraWorker.java; javac -version 2>&1; ls "$verapdf_jars"; } | sha256sum | cut -d' ' -f1)
  if [ ! -f "$verapdf_out/VeraWorker.class" ] || [ "$(cat "$verapdf_out/.sha256" 2>/dev/null)" != "$sum" ]; then
    mkdir -p dist/bin
    tmp=$(mktemp -d "$verapdf_out.XXXXXX")
    javac -nowarn -d "$tmp" -cp "$verapdf_jars/*" src/engines/verapdf/VeraWorker.java
    echo "$sum" >"$tmp/.sha256"
    chmod -R a+rX "$tmp"
    rm -rf "$verapdf_out"
    mv "$tmp" "$verapdf_out"
    log "built $verapdf_out"
  fi
else
  log "no javac or no veraPDF in $verapdf_jars; validate is unavailable"
fi

cc=$(command -v cc || command -v gcc || true)
if [ -z "$cc" ]; then
  log "no C compiler; engines start through util-linux's setpriv/prlimit and qpdf starts anew per run"
  exit 0
fi
# -Werror: a warning in a helper that every engine start goes through is a bug to fix, not to ship.
flags=(-std=gnu11 -O2 -Wall -Wextra -Werror -s)

cxx=$(command -v c++ || command -v g++ || true)
cxx_flags=(-std=gnu++17 -O2 -Wall -Wextra -Werror)

# build NAME DIR STATIC(yes|no) STAMP-EXTRA [LINKER ARGS...]: every .c file of DIR, and its .cc files
# (compiled as C++ beforehand and linked with libstdc++), its .h files in the stamp
build() {
  local out=dist/bin/$1 dir=$2 static=$3 extra=$4
  shift 4
  local src=("$dir"/*.c) cpp=() sum
  for f in "$dir"/*.cc; do [ -e "$f" ] && cpp+=("$f"); done
  sum=$({ cat "${src[@]}" "${cpp[@]}" "$dir"/*.h 2>/dev/null; echo "${flags[*]} ${cxx_flags[*]} $*"; echo "$extra"
    "$cc" --version | head -n 1; } | sha256sum | cut -d' ' -f1)
  if [ -x "$out" ] && [ -f "$out.sha256" ] && [ "$(cat "$out.sha256")" = "$sum" ]; then return 0; fi
  mkdir -p dist/bin
  # Built beside and renamed into place: a service starting engines meanwhile sees the old binary or
  # the new one, never half of one (and rename works while the old one is being executed).
  local tmp objs=()
  tmp=$(mktemp "$out.XXXXXX")
  if [ ${#cpp[@]} -gt 0 ]; then
    [ -n "$cxx" ] || { rm -f "$tmp"; log "no C++ compiler for $out"; return 1; }
    for f in "${cpp[@]}"; do
      objs+=("$tmp.$(basename "$f").o")
      # The C flags' include and library options (pkg-config) apply to the C++ sources too.
      "$cxx" "${cxx_flags[@]}" -c -o "${objs[-1]}" "$f" $(printf '%s\n' "$@" | grep '^-I' || true) ||
        { rm -f "$tmp" "${objs[@]}"; return 1; }
    done
    set -- "$@" -lstdc++
  fi
  if [ "$static" = yes ] && "$cc" "${flags[@]}" -static -o "$tmp" "${src[@]}" "${objs[@]}" "$@" 2>/dev/null; then
    log "built $out (static)"
  elif "$cc" "${flags[@]}" -o "$tmp" "${src[@]}" "${objs[@]}" "$@"; then
    log "built $out"
  else
    rm -f "$tmp" "${objs[@]}"
    return 1
  fi
  rm -f "${objs[@]}"
  chmod 0755 "$tmp"
  mv -f "$tmp" "$out"
  echo "$sum" >"$out.sha256"
}

build quire-exec src/process/exec-helper yes ""

forkserver=dist/bin/quire-qpdf-forkserver
qpdf_version=$(qpdf --version 2>/dev/null | sed -n 's/^qpdf version //p' || true)
lib_version=$(pkg-config --modversion libqpdf 2>/dev/null || true)
if [ -z "$lib_version" ] || [ "$lib_version" != "$qpdf_version" ]; then
  rm -f "$forkserver" "$forkserver.sha256"
  log "no libqpdf-dev matching qpdf ${qpdf_version:-(none)}; qpdf starts anew for every run"
elif ! build quire-qpdf-forkserver src/engines/qpdf/forkserver no "libqpdf $lib_version" \
  $(pkg-config --cflags --libs libqpdf); then
  rm -f "$forkserver" "$forkserver.sha256"
  log "the qpdf forkserver did not build; qpdf starts anew for every run"
fi
