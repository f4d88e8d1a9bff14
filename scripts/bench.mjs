#!/usr/bin/env node
// `npm run bench`: how fast cincy starts, answers a channel the first time, serves a cached graph
// (against a bare node:http server and nginx serving the same bytes) and how much memory it takes,
// on two inputs:
//   real — the real conformance set (../shared/conformance/real-2024-08-09, or $CINCY_CONFORMANCE_DIR)
//   full — a full-size tree from scripts/generate-graph-data.mjs --size full
//   replicas — the real set on PostgreSQL: import+build against SQLite, write → visible on 3 replicas,
//              throughput through nginx in front of 1 and 2 replicas (bench/replicas.mjs)
//   fleet — the real set with polls recorded: a distinct cluster id per request, against --no-fleet and
//           bare node:http, the fleet held after 300,000 ids, and the cost per cluster (bench/fleet.mjs)
//   fleet-reads — /graph's p99 while readers loop on the fleet API over 300,000 clusters and on
//           mirror-plan (bench/fleetReads.mjs)
//   paths — the update-path planner in process on the real set: every EUS pair two minors apart, random
//           questions, mirror plans of 199 sources (bench/paths.mjs)
//   rollouts — /graph with a fresh cluster id per request on the largest real channel, without a phased
//           rollout, with one and with two, on the same server (bench/rollouts.mjs)
// It prints a Markdown table and writes it to bench-results/latest.md. Missed targets are reported,
// never asserted; the exit code is 1 only when a step could not run. No dependencies beyond node:
// builtins and pg (the replicas part); wrk and nginx are installed with apt-get when missing. All
// traffic is to 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { freePort, get, keepAliveAgent, waitReady } from './bench/http.mjs';
import { checkSameBytes, startNginx } from './bench/nginx.mjs';
import { checkSameAnswer, keepAliveSettings, responseSpec, startBareNode } from './bench/bareNode.mjs';
import {
  groupCpuMs,
  hasCommand,
  installCleanupHandlers,
  peakRssMb,
  removeOnExit,
  run,
  start,
  stop,
} from './bench/procs.mjs';
import { atLeast, atMost, percentile, Report } from './bench/report.mjs';
import { channelsToRequest } from './bench/tree.mjs';
import { runWrk, WRK_ARGS, wrkCaveats } from './bench/wrk.mjs';
import { benchRegistry } from './bench/registry.mjs';
import { benchWebPage } from './bench/webPage.mjs';
import { benchWrites } from './bench/writes.mjs';
import { benchReplicas } from './bench/replicas.mjs';
import { benchFleet } from './bench/fleet.mjs';
import { benchPaths } from './bench/paths.mjs';
import { benchFleetReads } from './bench/fleetReads.mjs';
import { benchRollouts } from './bench/rollouts.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin', 'cincy.js');
const GENERATOR = join(ROOT, 'scripts', 'generate-graph-data.mjs');
const CONFORMANCE = resolve(ROOT, process.env.CINCY_CONFORMANCE_DIR ?? '../shared/conformance');
const REAL_SET = join(CONFORMANCE, 'real-2024-08-09');

const TARGETS = {
  coldReal: atMost(2, 's'),
  firstResponse: atMost(50, 'ms'),
  ratioBare: atLeast(0.9),
  ratioNginx: atLeast(0.7),
  rssFull: atMost(200, 'MB'),
  writeVisibleReal: atMost(50, 'ms'),
  writeVisibleFull: atMost(200, 'ms'),
};
const JSON_ACCEPT = { accept: 'application/json' };
const GZIP_ACCEPT = { accept: 'application/json', 'accept-encoding': 'gzip' };
const log = (msg) => console.log(`bench: ${msg}`);
const LOAD_AT_START = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');

// ---------------------------------------------------------------------------------------------
// Setup

/** apt-get only for what is missing: a second run must not touch the package lists again. */
function ensureTools(report) {
  const missing = ['wrk', 'nginx'].filter((c) => !hasCommand(c));
  if (!missing.length) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', ...missing]]) {
    log(`${missing.join(' and ')} missing: running apt-get ${args.join(' ')}`);
    const r = spawnSync('apt-get', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.status !== 0) {
      report.fail(
        `apt-get ${args.join(' ')}`,
        (r.stderr || r.error?.message || '').trim().split('\n').slice(-5).join('\n'),
      );
      return;
    }
  }
  for (const c of missing) log(hasCommand(c) ? `installed ${c}` : `${c} still missing after apt-get`);
}

/** The bench measures dist/: say so when src/ was edited after the last build. */
function warnIfDistStale() {
  const built = join(ROOT, 'dist', 'cli', 'main.js');
  if (!existsSync(built)) throw new Error('dist/ is missing: run `npm run build` first');
  const newest = (dir) =>
    readdirSync(dir, { withFileTypes: true }).reduce(
      (m, e) => Math.max(m, e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs),
      0,
    );
  if (newest(join(ROOT, 'src')) > statSync(built).mtimeMs)
    log('WARNING: src/ is newer than dist/; these numbers are for the last build (`npm run build`)');
}

// ---------------------------------------------------------------------------------------------
// Server

/** Spawns `cincy serve` on a fresh SQLite file and times spawn → first 200 of /readyz. */
async function startServer(graphData, workDir) {
  const port = await freePort();
  const db = join(mkdtempSync(join(workDir, 'db-')), 'cincy.db');
  const args = [
    CLI,
    'serve',
    '--graph-data',
    graphData,
    '--db',
    db,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'warn',
  ];
  const t0 = performance.now();
  // Run the launcher itself, as `npm start` and node_modules/.bin/cincy do, so its node flags apply.
  const proc = start('cincy serve', CLI, args.slice(1), { cwd: ROOT });
  const ready = await waitReady(proc, port, t0, { everyMs: 20, timeoutMs: 120_000 });
  return { proc, port, coldMs: ready.ms, readyz: ready.body };
}

const graphPath = (channel, arch) => `/graph?channel=${encodeURIComponent(channel)}&arch=${encodeURIComponent(arch)}`;

/**
 * The first GET of every channel (identity), one after another on one keep-alive connection that
 * was opened beforehand, so each time is the server's work for that view and not a TCP handshake.
 * Then a second round, to show what the same request costs once the view is cached.
 */
async function firstResponses(port, channels) {
  const agent = keepAliveAgent();
  await get(port, '/readyz', { agent });
  const first = [];
  for (const c of channels) {
    const res = await get(port, graphPath(c.name, c.arch), { headers: JSON_ACCEPT, agent });
    if (res.status !== 200)
      throw new Error(`GET ${graphPath(c.name, c.arch)} → ${res.status}: ${res.body.toString().slice(0, 200)}`);
    first.push({ ...c, ms: res.ms, bytes: res.body.length, nodes: JSON.parse(res.body.toString()).nodes.length });
  }
  const again = [];
  for (const c of channels)
    again.push((await get(port, graphPath(c.name, c.arch), { headers: JSON_ACCEPT, agent })).ms);
  agent.destroy();
  return { first, again };
}

// ---------------------------------------------------------------------------------------------
// One input

const M = {
  cold: 'cold import+build (spawn → /readyz 200)',
  first: 'first GET per channel',
  rss: 'peak RSS of the server (VmHWM)',
};
const T = {
  cincy: 'cached req/s, cincy',
  cincyP99: 'cached p99 latency, cincy',
  bare: "cached req/s, bare node:http as cincy (launcher's node flags, serve's connection limits)",
  bareP99: 'cached p99 latency, bare node:http as cincy',
  plain: 'cached req/s, bare node:http plain (Node defaults)',
  plainP99: 'cached p99 latency, bare node:http plain',
  nginx: 'cached req/s, nginx (same bytes)',
  nginxP99: 'cached p99 latency, nginx',
  ratioBare: 'req/s ratio cincy/bare node:http as cincy',
  ratioPlain: 'req/s ratio cincy/bare node:http plain',
  ratioNginx: 'req/s ratio cincy/nginx',
};
const THROUGHPUT_ROWS = Object.values(T);
const RATIO_TARGETS = {
  [T.ratioBare]: TARGETS.ratioBare,
  [T.ratioPlain]: TARGETS.ratioBare,
  [T.ratioNginx]: TARGETS.ratioNginx,
};
/** wrk runs per server, taken in turn (cincy, the bare servers, nginx, then again): medians are reported. */
const THROUGHPUT_ROUNDS = 3;

async function benchInput(report, input, workDir) {
  const { label, graphData } = input;
  log(`[${label}] starting cincy serve on ${relative(ROOT, graphData) || graphData}`);
  let server;
  try {
    server = await startServer(graphData, workDir);
  } catch (err) {
    report.fail(`[${label}] cincy serve`, err);
    report.notRun([M.cold, M.first, 'cached throughput', M.rss], label, 'server did not start', {
      [M.cold]: input.coldTarget,
      [M.first]: TARGETS.firstResponse,
      [M.rss]: input.rssTarget,
    });
    return;
  }
  try {
    recordStart(report, input, server);
    const largest = await recordFirstResponses(report, input, server);
    if (largest) await recordThroughput(report, input, server, largest);
    if (server.proc.exited)
      throw new Error(
        `cincy serve exited during the bench (${server.proc.code ?? server.proc.signal}):\n${server.proc.output.trim()}`,
      );
    const rss = peakRssMb(server.proc.pid);
    report.add(M.rss, label, rss, { unit: 'MB', digits: 0, target: input.rssTarget });
  } finally {
    await stop(server.proc);
  }
}

/** An unexpected error in one input is reported and the bench goes on to the next one. */
async function benchInputSafely(report, input, workDir) {
  try {
    await benchInput(report, input, workDir);
  } catch (err) {
    report.fail(`[${input.label}] bench`, err);
  }
}

function recordStart(report, input, server) {
  const g = server.readyz.graph ?? {};
  log(
    `[${input.label}] ready after ${(server.coldMs / 1000).toFixed(2)} s: ${g.releases} releases, ${g.channels} channels`,
  );
  report.add(M.cold, input.label, server.coldMs / 1000, { unit: 's', digits: 2, target: input.coldTarget });
  report.add('graph.buildSeconds (from /readyz)', input.label, g.buildSeconds ?? NaN, { unit: 's', digits: 3 });
  report.add('releases / channels served', input.label, `${g.releases} / ${g.channels}`);
}

/** Returns the largest channel by identity bytes, for the throughput run. */
async function recordFirstResponses(report, input, server) {
  const { label } = input;
  const channels = channelsToRequest(input.graphData, input.extraChannels ?? []);
  let result;
  try {
    result = await firstResponses(server.port, channels);
  } catch (err) {
    report.fail(`[${label}] first GET per channel`, err);
    report.notRun([M.first, ...THROUGHPUT_ROWS], label, 'a /graph request failed', {
      [M.first]: TARGETS.firstResponse,
      ...RATIO_TARGETS,
    });
    return undefined;
  }
  const { first, again } = result;
  const ms = first.map((f) => f.ms);
  const slowest = first.reduce((a, b) => (b.ms > a.ms ? b : a));
  const largest = first.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const empty = first.filter((f) => f.nodes === 0).length;
  const arches = [...new Set(first.map((f) => f.arch))].join(', ');
  log(`[${label}] ${first.length} channels (${arches}); slowest first GET ${slowest.name} ${slowest.ms.toFixed(1)} ms`);
  report.add(`${M.first}, p50 (${first.length} channels, ${arches})`, label, percentile(ms, 50), {
    unit: 'ms',
    target: TARGETS.firstResponse,
  });
  report.add(`${M.first}, max`, label, slowest.ms, {
    unit: 'ms',
    target: TARGETS.firstResponse,
    note: ` (${slowest.name}, ${kib(slowest.bytes)})`,
  });
  report.add('second GET per channel, p50 (view cached)', label, percentile(again, 50), { unit: 'ms', digits: 2 });
  report.add('second GET per channel, max', label, Math.max(...again), { unit: 'ms', digits: 2 });
  if (empty) report.add('channels with no nodes on the arch requested', label, empty, { digits: 0 });
  report.add(
    'largest channel (identity bytes)',
    label,
    `${largest.name} ${largest.arch}: ${kib(largest.bytes)}, ${largest.nodes} nodes`,
  );
  return largest;
}

const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;

/**
 * wrk against cincy, the two bare node:http servers giving cincy's very answer (the Node limit) and
 * nginx serving the same gzip bytes, with one identical wrk command, in turn for THROUGHPUT_ROUNDS
 * rounds: the machine's other work then weighs on all alike, and the ratios compare medians of one run.
 */
async function recordThroughput(report, input, server, largest) {
  const { label } = input;
  if (!hasCommand('wrk') || !hasCommand('nginx')) {
    report.notRun(THROUGHPUT_ROWS, label, 'wrk or nginx missing', RATIO_TARGETS);
    return;
  }
  const path = graphPath(largest.name, largest.arch);
  // Warm: the first gzip request compresses the view; the run should measure the cached bytes. The
  // answer is taken on a keep-alive connection, as wrk's are, for the bare servers to copy.
  const agent = keepAliveAgent();
  await get(server.port, path, { headers: GZIP_ACCEPT, agent });
  const warm = await get(server.port, path, { headers: GZIP_ACCEPT, agent });
  agent.destroy();
  if (warm.status !== 200 || warm.headers['content-encoding'] !== 'gzip') {
    report.fail(
      `[${label}] gzip response`,
      `GET ${path} with gzip → ${warm.status}, content-encoding ${warm.headers['content-encoding']}`,
    );
    report.notRun(THROUGHPUT_ROWS, label, 'no gzip response');
    return;
  }
  report.add('largest channel (gzip bytes served)', label, kib(warm.body.length));

  const others = [];
  let runs;
  try {
    others.push(await yardstick('bare', () => startBare(label, warm, path, 'cincy')));
    others.push(await yardstick('plain', () => startBare(label, warm, path, 'plain')));
    others.push(await yardstick('nginx', () => startNginxFor(label, warm.body, path)));
    const targets = [{ name: 'cincy', port: server.port, proc: server.proc }, ...others];
    log(`[${label}] wrk ${THROUGHPUT_ROUNDS} rounds → ${targets.map((t) => t.name).join(', ')} on ${path}`);
    runs = Object.fromEntries(targets.map((t) => [t.name, []]));
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++)
      for (const t of targets) {
        const cpuBefore = groupCpuMs(t.proc.pid);
        const r = await runWrk(t.name, `http://127.0.0.1:${t.port}${path}`);
        runs[t.name].push({ ...r, cpuUsPerRequest: ((groupCpuMs(t.proc.pid) - cpuBefore) * 1000) / r.requests });
      }
  } catch (err) {
    report.fail(`[${label}] cached throughput`, err);
    runs = undefined;
  } finally {
    for (const o of others) await stop(o.proc);
  }
  const median = (name) => (runs?.[name]?.length === THROUGHPUT_ROUNDS ? medianRun(runs[name]) : undefined);
  const result = { cincy: median('cincy'), bare: median('bare'), plain: median('plain'), nginx: median('nginx') };
  for (const [name, rps, p99] of [
    ['cincy', T.cincy, T.cincyP99],
    ['bare', T.bare, T.bareP99],
    ['plain', T.plain, T.plainP99],
    ['nginx', T.nginx, T.nginxP99],
  ]) {
    const r = result[name];
    if (!r) {
      report.notRun([rps, p99], label, 'wrk failed');
      continue;
    }
    report.add(rps, label, r.rps, {
      digits: 0,
      note: ` (median of ${runs[name].map((x) => x.rps.toFixed(0)).join(', ')})${wrkCaveats(r)}`,
    });
    report.add(p99, label, r.p99Ms, { unit: 'ms', digits: 2 });
  }
  // CPU per request is what the other work on the machine changes least: the cost of each server's path.
  for (const name of ['cincy', 'bare', 'plain', 'nginx']) {
    const cpu = runs?.[name]?.map((x) => x.cpuUsPerRequest).sort((a, b) => a - b);
    if (cpu?.length === THROUGHPUT_ROUNDS)
      report.add(
        `${T[name].replace(/^cached req\/s/, 'server CPU per cached request')}`,
        label,
        cpu[Math.floor(cpu.length / 2)],
        {
          unit: 'µs',
          digits: 1,
          note: ` (runs: ${cpu.map((c) => c.toFixed(1)).join(', ')})`,
        },
      );
  }
  for (const [name, row] of [
    ['bare', T.ratioBare],
    ['plain', T.ratioPlain],
    ['nginx', T.ratioNginx],
  ]) {
    if (result.cincy && result[name])
      report.add(row, label, result.cincy.rps / result[name].rps, { digits: 2, target: RATIO_TARGETS[row] });
    else report.notRun([row], label, 'wrk failed', RATIO_TARGETS);
  }
}

/** The run with the median req/s (its p99 with it). */
function medianRun(runs) {
  return [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];
}

/** Starts one of the servers cincy is compared with; named for the report. */
async function yardstick(name, startIt) {
  return { name, ...(await startIt()) };
}

/** A bare node:http server with cincy's answer to `path`, checked to give the same status, headers and bytes. */
async function startBare(label, cincyAnswer, path, mode) {
  const dir = removeOnExit(mkdtempSync(join(tmpdir(), `cincy-bench-bare-${label}-`)));
  const spec = responseSpec(cincyAnswer, keepAliveSettings(cincyAnswer.headers['keep-alive']));
  const bare = await startBareNode(dir, spec, cincyAnswer.body, mode);
  try {
    await checkSameAnswer(bare.port, path, GZIP_ACCEPT, cincyAnswer);
  } catch (err) {
    await stop(bare.proc);
    throw err;
  }
  log(`[${label}] bare node:http ${mode}${bare.flags.length ? ` (${bare.flags.join(' ')})` : ''}: same answer`);
  return bare;
}

async function startNginxFor(label, gzipBytes, path) {
  // Directly under the system temp dir: nginx workers run as an unprivileged user and could not
  // traverse the bench's own 0700 work dir.
  const dir = removeOnExit(mkdtempSync(join(tmpdir(), `cincy-bench-nginx-${label}-`)));
  const nginx = await startNginx(dir, gzipBytes);
  try {
    await checkSameBytes(nginx.port, path, gzipBytes);
  } catch (err) {
    await stop(nginx.proc);
    throw err;
  }
  log(`[${label}] nginx (1 worker): same ${gzipBytes.length} gzip bytes`);
  return nginx;
}

// ---------------------------------------------------------------------------------------------
// Inputs

function realInput() {
  const expected = join(REAL_SET, 'expected');
  const extraChannels = existsSync(expected)
    ? readdirSync(expected)
        .filter((n) => n.endsWith('.json'))
        .map((n) => n.slice(0, -5))
    : [];
  return { label: 'real', graphData: join(REAL_SET, 'graph-data'), extraChannels, coldTarget: TARGETS.coldReal };
}

/** Generates the full-size tree once; undefined (and a failure) when the generator is missing or fails. */
let fullMade;
function fullInput(report, workDir) {
  return (fullMade ??= generateFull(report, workDir));
}

async function generateFull(report, workDir) {
  const out = join(workDir, 'graph-data-full');
  if (!existsSync(GENERATOR)) {
    report.fail('[full] generate', `${relative(ROOT, GENERATOR)} does not exist`);
    return undefined;
  }
  log(`[full] generating a full-size tree (node ${relative(ROOT, GENERATOR)} --size full)`);
  const t0 = performance.now();
  try {
    await run('generate-graph-data', process.execPath, [GENERATOR, '--size', 'full', '--out', out], {
      cwd: ROOT,
      timeoutMs: 150_000,
    });
  } catch (err) {
    report.fail('[full] generate', err);
    return undefined;
  }
  report.add('generate full-size tree (not part of the server)', 'full', (performance.now() - t0) / 1000, {
    unit: 's',
    digits: 1,
  });
  return { label: 'full', graphData: out, rssTarget: TARGETS.rssFull };
}

// ---------------------------------------------------------------------------------------------
// Output

function header() {
  const commit =
    spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() || 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', 'src'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim()
    ? ' + uncommitted src/ changes'
    : '';
  return [
    `# cincy bench — ${new Date().toISOString()}`,
    '',
    `commit ${commit}${dirty}; node ${process.version}; ${cpus().length} CPUs (wrk, the server and nginx share them);`,
    `load average ${LOAD_AT_START} at the start, ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} at the end: other work on the machine skews latencies.`,
    '',
    `Throughput: \`wrk ${WRK_ARGS.map((a) => (a.includes(' ') ? `'${a}'` : a)).join(' ')} URL\` on the largest channel, gzip, after a warm-up.`,
    'nginx runs with worker_processes 1 because cincy serves from one Node process: one core each is the fair comparison.',
    "The bare node:http servers are the Node limit: one process each answering cincy's status, headers and bytes; 'as cincy' runs with the launcher's node flags and serve's connection limits, 'plain' with Node's defaults.",
    `Each server gets ${THROUGHPUT_ROUNDS} wrk runs, taken in turn; the table gives the median run.`,
    '',
  ].join('\n');
}

/** A failure message for a list item: its lines joined, clipped. */
const oneLine = (text) => {
  const joined = text
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' / ');
  return joined.length > 400 ? `${joined.slice(0, 400)}…` : joined;
};

function writeResults(report) {
  const failures = report.failures.map((f) => `- ${f.step}: ${oneLine(f.message)}`).join('\n');
  const body = `${header()}\n${report.markdown()}\n${failures ? `\nCould not run:\n${failures}\n` : ''}`;
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.md'), body);
  console.log(`\n${body}`);
  log(`written to ${relative(ROOT, join(dir, 'latest.md'))}`);
}

// ---------------------------------------------------------------------------------------------

async function main() {
  installCleanupHandlers();
  const started = performance.now();
  const report = new Report();
  warnIfDistStale();
  ensureTools(report);
  const workDir = removeOnExit(mkdtempSync(join(tmpdir(), 'cincy-bench-')));

  // `npm run bench -- --only real|full|writes|registry|web|replicas|fleet|fleet-reads|paths|rollouts` runs one part.
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  if (!only || only === 'real') await benchInputSafely(report, realInput(), workDir);
  if (!only || only === 'full') {
    const full = await fullInput(report, workDir);
    if (full) await benchInputSafely(report, full, workDir);
    else
      report.notRun([M.cold, M.first, 'cached throughput', M.rss], 'full', 'no full-size tree', {
        [M.first]: TARGETS.firstResponse,
        [M.rss]: TARGETS.rssFull,
      });
  }
  if (!only || only === 'registry') await benchRegistry(report, { root: ROOT, cli: CLI, workDir, log });
  if (!only || only === 'writes') {
    const full = await fullInput(report, workDir);
    for (const input of [realInput(), ...(full ? [full] : [])]) {
      const visibleTarget = TARGETS[input.label === 'real' ? 'writeVisibleReal' : 'writeVisibleFull'];
      await benchWrites(report, { ...input, visibleTarget }, { cli: CLI, workDir, log }).catch((err) =>
        report.fail(`[${input.label}] writes`, err),
      );
    }
  }
  if (!only || only === 'web') await benchWebPage(report, { cli: CLI, realSet: REAL_SET, workDir, log });
  if (!only || only === 'replicas')
    await benchReplicas(report, { root: ROOT, cli: CLI, realSet: REAL_SET, workDir, log }).catch((err) =>
      report.fail('[replicas]', err),
    );
  if (!only || only === 'fleet')
    await benchFleet(report, { root: ROOT, cli: CLI, realSet: REAL_SET, workDir, log }).catch((err) =>
      report.fail('[fleet]', err),
    );
  if (!only || only === 'fleet-reads')
    await benchFleetReads(report, { root: ROOT, cli: CLI, realSet: REAL_SET, workDir, log }).catch((err) =>
      report.fail('[fleet-reads]', err),
    );
  if (!only || only === 'paths')
    await benchPaths(report, { root: ROOT, realSet: REAL_SET, log }).catch((err) => report.fail('[paths]', err));
  if (!only || only === 'rollouts')
    await benchRollouts(report, { root: ROOT, cli: CLI, realSet: REAL_SET, workDir, log }).catch((err) =>
      report.fail('[rollouts]', err),
    );

  writeResults(report);
  log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return report.failures.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bench: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
