// The findings as tests: every vitest test whose full name says "reliability finding N" (issue 13) or
// "hostile finding N" (issue 30), in a test's name or its describe's, in any of the three projects, run
// once, counted per finding. Returns [label, N, counts] sorted by label and N. With `report`, the
// vitest JSON report of a run that had them all (CI's `npm test`) is read instead of running them again.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

export function runFindings({ root, workDir, log, report }) {
  if (report) {
    log(`the tests named "reliability finding N" and "hostile finding N", as ${report} reports them`);
    return countFindings(JSON.parse(readFileSync(report, 'utf8')), namedInTests(root));
  }
  const out = join(workDir, 'findings.json');
  log('running the tests named "reliability finding N" and "hostile finding N" (vitest)');
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const r = spawnSync(
    process.execPath,
    [vitest, 'run', '-t', '(reliability|hostile) finding', '--reporter=json', `--outputFile=${out}`],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 900_000 },
  );
  let results;
  try {
    results = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    throw new Error(`vitest gave no report (exit ${r.status}):\n${(r.stderr || r.stdout).slice(-2000)}`);
  }
  return countFindings(results, namedInTests(root));
}

/**
 * Every finding the test files name ("reliability finding 3" in a test's or a describe's title), so that
 * one the run did not report (left out of the report, renamed, skipped) counts as not held.
 */
function namedInTests(root) {
  const named = new Set();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.test.ts'))
        for (const m of readFileSync(path, 'utf8').matchAll(/(reliability|hostile) finding (\d+)/g))
          named.add(`${m[1]} ${m[2]}`);
    }
  };
  for (const dir of ['test', join('simulator', 'test')]) walk(join(root, dir));
  return named;
}

/** The finding tests of a vitest JSON report, counted per finding; each of `named` the report lacks, as none held. */
function countFindings(results, named) {
  const byFinding = new Map();
  for (const key of named) {
    const [label, n] = key.split(' ');
    byFinding.set(key, { label, n: Number(n), tried: 0, held: 0, failed: ['not in the report: not run, or skipped'] });
  }
  for (const file of results.testResults)
    for (const t of file.assertionResults) {
      const m = /(reliability|hostile) finding (\d+)/.exec(t.fullName);
      if (!m || t.status === 'skipped' || t.status === 'pending') continue;
      const key = `${m[1]} ${m[2]}`;
      const f = byFinding.get(key) ?? { label: m[1], n: Number(m[2]), tried: 0, held: 0, failed: [] };
      if (f.tried === 0) f.failed = [];
      f.tried += 1;
      if (t.status === 'passed') f.held += 1;
      else f.failed.push(t.title);
      byFinding.set(key, f);
    }
  return [...byFinding.values()]
    .sort((a, b) => b.label.localeCompare(a.label) || a.n - b.n)
    .map((f) => [f.label, f.n, f]);
}
