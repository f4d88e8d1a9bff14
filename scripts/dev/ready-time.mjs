#!/usr/bin/env node
// How long `cincy serve` takes from its spawn to listening and to its first /readyz 200, and the CPU its
// process used by then: the median of N starts, each on an empty in-memory store. The clone given may be
// another build of cincy (a `git worktree` of an older commit, built), to compare the two in turn.
//
//   node scripts/dev/ready-time.mjs [--root DIR] [--runs N] [-- SERVE_ARGS...]
//   node scripts/dev/ready-time.mjs --runs 5 -- --graph-data ../shared/conformance/real-2024-08-09/graph-data
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const own = dash < 0 ? argv : argv.slice(0, dash);
const serveArgs = dash < 0 ? [] : argv.slice(dash + 1);
const flag = (name, fallback) => {
  const i = own.indexOf(name);
  return i < 0 ? fallback : own[i + 1];
};
const root = resolve(flag('--root', join(import.meta.dirname, '..', '..')));
const runs = Number(flag('--runs', '5'));
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: '${flag('--runs')}' is not a positive integer`);
const cli = join(root, 'bin', 'cincy.js');
if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) throw new Error(`${root}/dist is missing: npm run build there`);

/** The CPU a process used so far (user and system), from /proc. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function once() {
  const t0 = performance.now();
  const args = ['serve', '--db', ':memory:', '--port', '0', '--log-level', 'info', ...serveArgs];
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (b) => (output += b));
  child.stderr.on('data', (b) => (output += b));
  let url;
  let listenMs;
  try {
    for (;;) {
      await new Promise((r) => setTimeout(r, 10));
      if (child.exitCode !== null) throw new Error(`cincy serve exited ${child.exitCode}:\n${output}`);
      if (!url) {
        url = /listening at (http:\/\/[0-9.:]+)/.exec(output)?.[1];
        if (url) listenMs = performance.now() - t0;
        continue;
      }
      if (
        await fetch(`${url}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        )
      )
        break;
    }
    return { listenMs, readyMs: performance.now() - t0, cpuMs: cpuMs(child.pid) };
  } finally {
    child.kill();
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  }
}

const results = [];
for (let i = 0; i < runs; i++) results.push(await once());
const median = (key) => results.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(results.length / 2)];
console.log(
  `${root}: spawn → listening ${Math.round(median('listenMs'))} ms, → /readyz 200 ${Math.round(median('readyMs'))} ms, ` +
    `CPU ${median('cpuMs')} ms (medians of ${runs}; each: ${results.map((r) => Math.round(r.readyMs)).join(', ')} ms)`,
);
