// The suite's last line: adds the main vitest JSON report, the network-namespace one and the Python
// SDK's pytest JUnit report (plus one failure when its mypy --strict run failed).
// Usage: node scripts/test-summary.mjs MAIN.json [--netns-skipped] NETNS.json [--pytest PYTEST.xml] [--mypy-failed]
// Prints the last line and exits non-zero on any failure, including a missing report or a namespace run of no tests.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const netnsSkipped = args.includes('--netns-skipped');
const mypyFailed = args.includes('--mypy-failed');
const pytestAt = args.indexOf('--pytest');
const pytestPath = pytestAt >= 0 ? args[pytestAt + 1] : undefined;
const [mainPath, netnsPath] = args.filter(
  (a, i) => !a.startsWith('--') && (pytestAt < 0 || i !== pytestAt + 1),
);

function report(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    console.log(`all: 0 passed, 1 failed (no report at ${file})`);
    process.exit(1);
  }
}

const main = report(mainPath);

let passed = main.numPassedTests;
let failed = main.numFailedTests;
// The main run skips the namespace group (no public address there); tests that ran in the
// namespace leave that count. Those the namespace run filtered out already ran in the main run.
let skipped = main.numPendingTests + main.numTodoTests;
let note = '';
if (!netnsSkipped) {
  const netns = report(netnsPath);
  const ran = netns.numPassedTests + netns.numFailedTests;
  passed += netns.numPassedTests;
  failed += netns.numFailedTests;
  skipped = Math.max(0, skipped - ran);
  // A filter that matches nothing would pass silently: a renamed group must fail here instead.
  if (ran === 0) {
    failed += 1;
    note = ' (netns group ran no tests)';
  } else if (!netns.success && netns.numFailedTests === 0) {
    failed += 1;
    note = ' (netns run failed outside tests)';
  }
}
if (pytestPath) {
  // pytest's JUnit XML: the <testsuite> element's counts (errors are failures outside an assertion).
  let xml = '';
  try {
    xml = readFileSync(pytestPath, 'utf8');
  } catch {
    xml = '';
  }
  const suite = /<testsuite\b([^>]*)>/.exec(xml)?.[1] ?? '';
  const count = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? Number.NaN);
  const [tests, failures, errors, pySkipped] = ['tests', 'failures', 'errors', 'skipped'].map(count);
  if ([tests, failures, errors, pySkipped].some(Number.isNaN) || tests === 0) {
    failed += 1;
    note += ` (no pytest report at ${pytestPath})`;
  } else {
    passed += tests - failures - errors - pySkipped;
    failed += failures + errors;
    skipped += pySkipped;
  }
}
if (mypyFailed) {
  failed += 1;
  note += ' (mypy --strict failed)';
}
console.log(`all: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${note}`);
process.exit(failed > 0 ? 1 : 0);
