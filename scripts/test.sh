#!/usr/bin/env bash
# The whole test suite: set up, type-check and lint, then every test through real components.
# The last line is the runner's summary ("vitest: N passed, N failed").
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --with-test-tools || exit 1
npm run --silent check || { echo "vitest: 0 passed, 1 failed (check failed)"; exit 1; }
mkdir -p .tmp
npx --no-install vitest run --reporter=default --reporter=json --outputFile.json=.tmp/vitest.json
status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(".tmp/vitest.json", "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' || echo "vitest: 0 passed, 1 failed (no report)"
exit $status
