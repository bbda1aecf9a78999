// The suite's last line: adds the main vitest JSON report and the network-namespace one.
// Usage: node scripts/test-summary.mjs MAIN.json [--netns-skipped] NETNS.json
// Prints the last line and exits non-zero on any failure, including a missing report or a namespace run of no tests.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const netnsSkipped = args.includes('--netns-skipped');
const [mainPath, netnsPath] = args.filter((a) => a !== '--netns-skipped');

function report(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    console.log(`vitest: 0 passed, 1 failed (no report at ${file})`);
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
console.log(`vitest: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${note}`);
process.exit(failed > 0 ? 1 : 0);
