#!/usr/bin/env bash
# The whole test suite: set up, type-check and lint, then every test through real components.
# The last line sums every runner ("all: N passed, N failed[, N skipped]"): vitest's two runs and the
# Python SDK's pytest run.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-test-tools || exit 1
npm run --silent check || { echo "all: 0 passed, 1 failed (check failed)"; exit 1; }
mkdir -p .tmp
rm -f .tmp/vitest.json .tmp/vitest-netns.json
npx --no-install vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest.json
status=$?

# The redirect checks need a public address that this host serves; only a network namespace of
# their own can give one (lo holds it, nothing else exists), which needs root, unshare and ip.
NETNS_ADDRESS=93.184.216.34
NETNS_GROUP='redirects from a public address'
netns_skip=""
if [ "$(id -u)" != 0 ]; then netns_skip="not running as root"
elif ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then netns_skip="unshare or ip missing"
elif ! unshare -n true 2>/dev/null; then netns_skip="unshare -n is not permitted here"
fi
if [ -n "$netns_skip" ]; then
  echo "netns: '$NETNS_GROUP' skipped ($netns_skip)"
else
  unshare -n env NETNS_ADDRESS="$NETNS_ADDRESS" NETNS_GROUP="$NETNS_GROUP" sh -c '
    ip link set lo up && ip addr add "$NETNS_ADDRESS/32" dev lo &&
    TEST_PUBLIC_ADDRESS="$NETNS_ADDRESS" npx --no-install vitest run \
      test/e2e/workflows-import-export.test.ts -t "$NETNS_GROUP" \
      --reporter=default --reporter=json --outputFile.json=.tmp/vitest-netns.json'
  netns_status=$?
  [ "$netns_status" = 0 ] || status=$netns_status
fi

# The Python SDK (clients/python): mypy --strict, then its tests against a real server they start.
rm -f .tmp/pytest.xml
mypy_failed=""
(cd clients/python && ../../.tmp/python-sdk/bin/python -m mypy) || { mypy_failed=--mypy-failed; status=1; }
(cd clients/python && ../../.tmp/python-sdk/bin/python -m pytest -q --junitxml=../../.tmp/pytest.xml) || status=1

node scripts/test-summary.mjs .tmp/vitest.json ${netns_skip:+--netns-skipped} .tmp/vitest-netns.json \
  --pytest .tmp/pytest.xml $mypy_failed || status=1
exit $status
