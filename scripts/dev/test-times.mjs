// Reads vitest's JSON report (--reporter=json --outputFile=FILE) and prints what a run counted and
// where its time went: each tier's files, tests, the seconds its files took summed and the span from
// its first file's start to its last file's end, then the slowest files. Exits 1 when no test ran or a
// test or a file failed (a file can fail with every test passed: a hook or a teardown that threw).
// Usage: node scripts/dev/test-times.mjs FILE [SLOWEST=10]
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file, slowestArg = '10'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/dev/test-times.mjs REPORT.json [SLOWEST]');
  process.exit(2);
}
if (!existsSync(file)) {
  console.error(`${file}: no report: vitest did not run (did the typecheck, ESLint or prettier fail first?)`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const seconds = (ms) => (ms / 1000).toFixed(1);
const tierOf = (path) => /\/(unit|service|e2e)\//.exec(path)?.[1] ?? 'other';

const files = report.testResults.map((f) => ({
  path: relative(process.cwd(), f.name),
  tier: tierOf(f.name),
  tests: f.assertionResults.length,
  start: f.startTime,
  end: f.endTime,
  failed: f.status === 'failed',
  message: f.message,
}));

console.log(
  `vitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests} skipped; ` +
    `${files.filter((f) => f.failed).length} of ${files.length} files failed`,
);
console.log('tier      files  tests  file-seconds  span-seconds');
for (const tier of ['unit', 'service', 'e2e', 'other']) {
  const of = files.filter((f) => f.tier === tier);
  if (!of.length) continue;
  const sum = of.reduce((s, f) => s + (f.end - f.start), 0);
  const span = Math.max(...of.map((f) => f.end)) - Math.min(...of.map((f) => f.start));
  const tests = of.reduce((s, f) => s + f.tests, 0);
  console.log(
    `${tier.padEnd(8)} ${String(of.length).padStart(6)} ${String(tests).padStart(6)} ${seconds(sum).padStart(13)} ${seconds(span).padStart(13)}`,
  );
}
const slowest = [...files].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, Number(slowestArg));
console.log(`the ${slowest.length} slowest files:`);
for (const f of slowest) console.log(`${seconds(f.end - f.start).padStart(8)} s  ${f.path} (${f.tests} tests)`);
for (const f of files.filter((f) => f.failed)) console.log(`FAILED ${f.path}${f.message ? `: ${f.message}` : ''}`);

if (report.numTotalTests === 0) {
  console.error('no test ran');
  process.exit(1);
}
if (report.numFailedTests > 0 || files.some((f) => f.failed)) process.exit(1);
