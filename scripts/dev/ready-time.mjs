#!/usr/bin/env node
// How long `cincy serve` takes from its spawn to listening and to its first /readyz 200, and the CPU its
// process used by then: the median of N starts, each on an empty in-memory store. The launcher is run as
// a user's shell runs it, with the node flags of its first line. The clone given may be
// another build of cincy (a `git worktree` of an older commit, built), to compare the two in turn.
//
//   node scripts/dev/ready-time.mjs [--root DIR] [--against DIR] [--runs N] [--fresh-db] [-- SERVE_ARGS...]
//   node scripts/dev/ready-time.mjs --runs 5 -- --graph-data ../shared/conformance/real-2024-08-09/graph-data
//
// --fresh-db: each start on a new SQLite file (in a temporary folder, removed after), as a first start is.
// --against DIR: another build, started in turn with --root's, one start each: a machine whose speed drifts
// within minutes slows both alike.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort, waitReady } from '../bench/http.mjs';
import { start, stop } from '../bench/procs.mjs';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const own = dash < 0 ? argv : argv.slice(0, dash);
const serveArgs = dash < 0 ? [] : argv.slice(dash + 1);
const flag = (name, fallback) => {
  const i = own.indexOf(name);
  return i < 0 ? fallback : own[i + 1];
};
const root = resolve(flag('--root', join(import.meta.dirname, '..', '..')));
const against = flag('--against') && resolve(flag('--against'));
const runs = Number(flag('--runs', '5'));
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: '${flag('--runs')}' is not a positive integer`);
const freshDb = own.includes('--fresh-db');
const roots = against ? [against, root] : [root];
for (const r of roots)
  if (!existsSync(join(r, 'dist', 'cli', 'main.js'))) throw new Error(`${r}/dist is missing: npm run build there`);

/** The CPU a process used so far (user and system), from /proc. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** One start of the build at `build`: the times from the spawn to the "listening at" line and to /readyz 200, and the CPU by then. */
async function once(build) {
  const cli = join(build, 'bin', 'cincy.js');
  const port = await freePort();
  const dir = freshDb ? mkdtempSync(join(tmpdir(), 'ready-time-')) : undefined;
  const db = dir ? join(dir, 'cincy.db') : ':memory:';
  const args = ['serve', '--db', db, '--port', String(port), '--log-level', 'info', ...serveArgs];
  const t0 = performance.now();
  // The launcher itself, as a shell, `npm start` and node_modules/.bin/cincy run it: its node flags
  // (bin/cincy.js's first line) apply, as they do for every user.
  const proc = start('cincy serve', cli, args);
  let listenMs;
  const listening = setInterval(
    () => (listenMs ??= /listening at/.test(proc.output) ? performance.now() - t0 : undefined),
    5,
  );
  try {
    const { ms } = await waitReady(proc, port, t0, { everyMs: 10 });
    return { listenMs: listenMs ?? ms, readyMs: ms, cpuMs: cpuMs(proc.pid) };
  } finally {
    clearInterval(listening);
    await stop(proc);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

const results = new Map(roots.map((r) => [r, []]));
for (let i = 0; i < runs; i++) for (const r of roots) results.get(r).push(await once(r));
for (const [r, rs] of results) {
  const median = (key) => rs.map((x) => x[key]).sort((a, b) => a - b)[Math.floor(rs.length / 2)];
  const each = rs.map((x) => Math.round(x.readyMs)).sort((a, b) => a - b);
  console.log(
    `${r}: spawn → listening ${Math.round(median('listenMs'))} ms, → /readyz 200 ${Math.round(median('readyMs'))} ms, ` +
      `CPU ${median('cpuMs')} ms (medians of ${runs}; each, sorted: ${each.join(', ')} ms)`,
  );
}
