// The flake hunt: runs the same vitest selection again and again and tells which files ever failed, and
// how often. A test that fails once in ten runs fails CI once in ten sessions; this finds it before CI
// does. Each run's output and JSON report are kept in the run folder, to read the failure at its cause.
//
//   node scripts/dev/repeat-tests.mjs [--runs N] [--load 'COMMAND'] [--out DIR] [-- VITEST ARGS...]
//
// --runs N       how many runs (default 3)
// --load CMD     a shell command run over and over beside the tests, to load the machine (a benchmark:
//                'npm run bench -- --only real'); stopped when the last run ends
// --out DIR      where the logs and reports go (default: a new folder under the system's temporary one)
// VITEST ARGS    what to run (default: --project service --project e2e); a file or a -t pattern to
//                repeat one suspect
//
// Exits 1 when any run failed. Run it with CI=true, as CI does, so that nothing is skipped.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

function parseArgs(argv) {
  const opts = { runs: 3, load: undefined, out: undefined, vitest: ['--project', 'service', '--project', 'e2e'] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--runs') {
      opts.runs = Number(value());
      if (!Number.isInteger(opts.runs) || opts.runs < 1) throw new Error('--runs takes a whole number from 1 up');
    } else if (a === '--load') opts.load = value();
    else if (a === '--out') opts.out = value();
    else if (a === '--help' || a === '-h') {
      // The usage is the head of this file, its comment lines up to the first import.
      const head = readFileSync(new URL(import.meta.url), 'utf8').split('\nimport ')[0];
      console.log(head.replace(/^\/\/ ?/gm, ''));
      process.exit(0);
    } else if (a === '--') {
      opts.vitest = argv.slice(i + 1);
      break;
    } else throw new Error(`unknown option ${a} (--help says which there are)`);
  }
  return opts;
}

/** Runs `cmd args` to its end, its output into `logFile`; resolves with the exit code. */
function runLogged(cmd, args, logFile) {
  return new Promise((resolve) => {
    const log = createWriteStream(logFile);
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('close', (code, signal) => log.end(() => resolve(code ?? (signal ? 128 : 1))));
  });
}

/** `command` in a shell, started again each time it ends, until stop() (which kills its process group). */
function loadLoop(command, logFile) {
  let child;
  let stopped = false;
  const log = createWriteStream(logFile);
  const next = () => {
    if (stopped) return;
    child = spawn('sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('exit', next);
  };
  next();
  return () => {
    stopped = true;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // ended meanwhile
    }
    log.end();
  };
}

/** What a run's JSON report says: tests passed and failed, and the files that failed with why. */
function outcome(reportFile) {
  if (!existsSync(reportFile))
    return { passed: 0, failed: 0, files: [{ path: '(no report)', why: 'vitest did not finish' }] };
  const r = JSON.parse(readFileSync(reportFile, 'utf8'));
  const files = r.testResults
    .filter((f) => f.status === 'failed')
    .map((f) => {
      const tests = f.assertionResults.filter((a) => a.status === 'failed');
      const why = tests.length
        ? tests.map((a) => `${a.title}: ${(a.failureMessages[0] ?? '').split('\n')[0]}`).join('; ')
        : f.message.split('\n')[0] || 'the file failed outside its tests (a hook or a teardown)';
      return { path: relative(process.cwd(), f.name), why };
    });
  return { passed: r.numPassedTests, failed: r.numFailedTests, files };
}

let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (err) {
  console.error(`repeat-tests: ${err.message}`);
  process.exit(2);
}
const out = opts.out ?? mkdtempSync(join(tmpdir(), 'cincy-repeat-'));
mkdirSync(out, { recursive: true });
console.log(`repeat-tests: ${opts.runs} run(s) of vitest ${opts.vitest.join(' ')}; logs in ${out}`);
const stopLoad = opts.load ? loadLoop(opts.load, join(out, 'load.log')) : undefined;
if (opts.load) console.log(`load beside the tests: ${opts.load}`);

const failures = new Map(); // file -> runs it failed in
const rows = [];
try {
  for (let run = 1; run <= opts.runs; run++) {
    const report = join(out, `run-${run}.json`);
    const started = Date.now();
    const args = ['vitest', 'run', ...opts.vitest, '--reporter=default', '--reporter=json', `--outputFile=${report}`];
    const code = await runLogged('npx', args, join(out, `run-${run}.log`));
    const o = outcome(report);
    const seconds = Math.round((Date.now() - started) / 1000);
    rows.push({ run, code, seconds, ...o });
    for (const f of o.files) failures.set(f.path, [...(failures.get(f.path) ?? []), run]);
    const verdict = code === 0 ? 'passed' : `FAILED (exit ${code})`;
    console.log(`run ${run}: ${verdict}, ${o.passed} tests passed, ${o.failed} failed, ${seconds} s`);
    for (const f of o.files) console.log(`  ${f.path}: ${f.why}`);
  }
} finally {
  stopLoad?.();
}

const clean = rows.filter((r) => r.code === 0).length;
console.log(`\n${clean} of ${rows.length} runs passed`);
for (const [path, runs] of failures) console.log(`  ${path} failed in run(s) ${runs.join(', ')}`);
process.exit(clean === rows.length ? 0 : 1);
