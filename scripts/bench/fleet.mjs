// The fleet part of the bench (issue 29), on the real conformance set:
//   - cached /graph throughput while polls are recorded: every request names another cluster (a wrk
//     Lua script cycles through FLEET_IDS distinct UUIDs, each at a version of the channel that moves
//     on every cycle), against `serve --no-fleet` and a bare node:http server given the same requests
//     and sending the same bytes, in alternating rounds; the target is recording/bare ≥ 0.9;
//   - the fleet held after those polls: clusters stored, peak RSS of both servers, the SQLite file,
//     the last flush's duration, and the fleet API's latency over that many clusters;
//   - the cost per cluster, measured apart (fleetScale.mjs): the batch's heap, the flush of 100,000 new
//     clusters and of 100,000 that moved, and the file per 100,000.
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { checkSameAnswer, keepAliveSettings, responseSpec, startBareNode } from './bareNode.mjs';
import { freePort, get, keepAliveAgent, waitReady } from './http.mjs';
import { mintToken, writeAdminSecret } from './admin.mjs';
import { groupCpuMs, hasCommand, peakRssMb, removeOnExit, run, start, stop } from './procs.mjs';
import { atLeast, percentile } from './report.mjs';
import { postgresBin, startPostgres } from '../lib/postgres.mjs';
import { channelsToRequest } from './tree.mjs';
import { runWrk, wrkCaveats } from './wrk.mjs';

export const FLEET_TARGETS = { ratio: atLeast(0.9) };

const INPUT = 'real';
/** Distinct cluster ids the polls cycle through. */
const FLEET_IDS = 300_000;
/** Rounds of the three servers in turn: this machine's speed drifts, so more than a few, and the median. */
const ROUNDS = 5;
const API_SAMPLES = 20;
const GZIP_ACCEPT = { accept: 'application/json', 'accept-encoding': 'gzip' };
const M = {
  fleet: 'cached req/s, recording polls (a distinct id per request)',
  noFleet: 'cached req/s, --no-fleet (same requests)',
  bare: 'cached req/s, bare node:http as cincy (same requests)',
  ratio: 'req/s ratio recording/bare node:http',
  ratioNoFleet: 'req/s ratio --no-fleet/bare node:http',
  roundRatio: 'req/s ratio recording/bare node:http within a round, median of the rounds',
  roundRatioNoFleet: 'req/s ratio --no-fleet/bare node:http within a round, median of the rounds',
  roundRatioRecording: 'req/s ratio recording/--no-fleet within a round, median of the rounds',
  cpuFleet: 'server CPU per request, recording',
  cpuNoFleet: 'server CPU per request, --no-fleet',
  cpuBare: 'server CPU per request, bare node:http',
  stored: `clusters stored after the polls (of ${FLEET_IDS} ids)`,
  rssFleet: 'peak RSS, recording server',
  rssNoFleet: 'peak RSS, --no-fleet server',
  db: 'SQLite file (with WAL) after the polls',
  lastFlush: 'last background flush (from /metrics)',
};

/** `ctx`: { root, cli, realSet, workDir, log }. */
export async function benchFleet(report, ctx) {
  await scale(report, ctx, 100_000);
  await scale(report, ctx, 300_000);
  if (postgresBin()) {
    const pg = await startPostgres();
    try {
      await scale(report, ctx, 100_000, await pg.createDatabase());
    } finally {
      await pg.close();
    }
  } else report.notRun(['the cost per cluster on PostgreSQL'], INPUT, 'PostgreSQL not installed');
  if (!hasCommand('wrk')) {
    report.notRun(Object.values(M), INPUT, 'wrk missing', { [M.ratio]: FLEET_TARGETS.ratio });
    return;
  }
  await throughput(report, ctx);
}

/** fleetScale.mjs for `clusters`, on SQLite or on the PostgreSQL database `postgresUrl`. */
async function scale(report, ctx, clusters, postgresUrl) {
  const where = postgresUrl ?? removeOnExit(mkdtempSync(join(ctx.workDir, 'fleet-scale-')));
  const script = join(ctx.root, 'scripts', 'bench', 'fleetScale.mjs');
  const out = await run('fleetScale', process.execPath, ['--expose-gc', script, where, String(clusters)], {
    timeoutMs: 300_000,
  });
  const r = JSON.parse(out.trim().split('\n').pop());
  const engine = postgresUrl ? 'PostgreSQL' : 'SQLite';
  const label = `${clusters / 1000}k clusters, ${engine}`;
  const per100k = 100_000 / clusters;
  const storage = postgresUrl ? 'PostgreSQL tables with indexes' : 'SQLite file with WAL';
  report.add(
    `batch in memory before a flush, per 100,000 clusters (${label})`,
    INPUT,
    (r.batchBytes * per100k) / 2 ** 20,
    {
      unit: 'MB',
    },
  );
  report.add(`flush of new clusters (${label}, 2,000 per transaction)`, INPUT, r.firstFlushSeconds, {
    unit: 's',
    digits: 2,
  });
  report.add(`flush of clusters that moved version (${label})`, INPUT, r.secondFlushSeconds, { unit: 's', digits: 2 });
  report.add(
    `${storage} per 100,000 clusters, one version each (${label})`,
    INPUT,
    (r.dbBytesAfterFirst * per100k) / 2 ** 20,
    {
      unit: 'MB',
    },
  );
  report.add(
    `${storage} per 100,000 clusters, after one version move each (${label})`,
    INPUT,
    (r.dbBytesAfterSecond * per100k) / 2 ** 20,
    {
      unit: 'MB',
    },
  );
}

async function throughput(report, ctx) {
  const secret = writeAdminSecret(removeOnExit(mkdtempSync(join(ctx.workDir, 'fleet-secret-'))));
  const fleet = await startServe(ctx, secret, []);
  const noFleet = await startServe(ctx, secret, ['--no-fleet']);
  let bare;
  try {
    const { path, versions, answer } = await largestChannel(ctx, fleet.port);
    const dir = removeOnExit(mkdtempSync(join(tmpdir(), 'cincy-bench-fleet-bare-')));
    bare = await startBareNode(
      dir,
      responseSpec(answer, keepAliveSettings(answer.headers['keep-alive'])),
      answer.body,
      'cincy',
    );
    await checkSameAnswer(bare.port, path, GZIP_ACCEPT, answer);
    const script = writeLuaScript(ctx.workDir);
    const env = { FLEET_IDS: String(FLEET_IDS), FLEET_PATH: path, FLEET_VERSIONS: versions.join(',') };
    const token = await mintToken(ctx.cli, secret, 'fleet:read');

    // Every id polled at least once before the measured rounds, so they run against a full fleet.
    ctx.log(`[fleet] polling ${FLEET_IDS} distinct ids into the recording server`);
    let offset = 0;
    for (let i = 0; i < 10 && (await storedClusters(fleet.port, token)) < FLEET_IDS; i++) {
      const r = await runWrk('fleet prefill', `http://127.0.0.1:${fleet.port}${path}`, {
        script,
        scriptArgs: [String(offset)],
        env,
      });
      offset += r.requests;
      await sleep(6000); // a flush interval
    }

    const targets = [
      { name: 'fleet', port: fleet.port, proc: fleet.proc },
      { name: 'noFleet', port: noFleet.port, proc: noFleet.proc },
      { name: 'bare', port: bare.port, proc: bare.proc },
    ];
    const runs = { fleet: [], noFleet: [], bare: [] };
    ctx.log(`[fleet] wrk ${ROUNDS} rounds → ${targets.map((t) => t.name).join(', ')} on ${path}&id=…&version=…`);
    for (let round = 0; round < ROUNDS; round++)
      for (const t of targets) {
        const cpuBefore = groupCpuMs(t.proc.pid);
        const r = await runWrk(t.name, `http://127.0.0.1:${t.port}${path}`, {
          script,
          scriptArgs: [String(offset)],
          env,
        });
        if (t.name === 'fleet') offset += r.requests;
        runs[t.name].push({ ...r, cpuUs: ((groupCpuMs(t.proc.pid) - cpuBefore) * 1000) / r.requests });
      }
    const median = (name) => [...runs[name]].sort((a, b) => a.rps - b.rps)[Math.floor(ROUNDS / 2)];
    for (const [name, row] of [
      ['fleet', M.fleet],
      ['noFleet', M.noFleet],
      ['bare', M.bare],
    ]) {
      const r = median(name);
      report.add(row, INPUT, r.rps, {
        digits: 0,
        note: ` (median of ${runs[name].map((x) => x.rps.toFixed(0)).join(', ')})${wrkCaveats(r)}`,
      });
    }
    report.add(M.ratio, INPUT, median('fleet').rps / median('bare').rps, { digits: 2, target: FLEET_TARGETS.ratio });
    report.add(M.ratioNoFleet, INPUT, median('noFleet').rps / median('bare').rps, { digits: 2 });
    // The machine's speed drifts between rounds more than the servers differ: the three runs of one
    // round are a minute apart at most, so their ratios compare more nearly alike.
    const roundRatios = (a, b) => {
      const r = runs[a].map((x, i) => x.rps / runs[b][i].rps).sort((x, y) => x - y);
      return { value: r[Math.floor(r.length / 2)], note: ` (rounds: ${r.map((x) => x.toFixed(2)).join(', ')})` };
    };
    for (const [row, a, b] of [
      [M.roundRatio, 'fleet', 'bare'],
      [M.roundRatioNoFleet, 'noFleet', 'bare'],
      [M.roundRatioRecording, 'fleet', 'noFleet'],
    ]) {
      const { value, note } = roundRatios(a, b);
      report.add(row, INPUT, value, { digits: 2, note });
    }
    for (const [name, row] of [
      ['fleet', M.cpuFleet],
      ['noFleet', M.cpuNoFleet],
      ['bare', M.cpuBare],
    ]) {
      const cpu = runs[name].map((x) => x.cpuUs).sort((a, b) => a - b);
      report.add(row, INPUT, cpu[Math.floor(cpu.length / 2)], {
        unit: 'µs',
        digits: 1,
        note: ` (runs: ${cpu.map((c) => c.toFixed(1)).join(', ')})`,
      });
    }

    await sleep(6000); // the last polls flushed
    report.add(M.stored, INPUT, await storedClusters(fleet.port, token), { digits: 0 });
    report.add(M.rssFleet, INPUT, peakRssMb(fleet.proc.pid), { unit: 'MB', digits: 0 });
    report.add(M.rssNoFleet, INPUT, peakRssMb(noFleet.proc.pid), { unit: 'MB', digits: 0 });
    report.add(M.db, INPUT, fileSize(fleet.db) / 2 ** 20, { unit: 'MB' });
    report.add(M.lastFlush, INPUT, await lastFlushSeconds(fleet.port), { unit: 's', digits: 3 });
    await apiLatency(report, fleet.port, token);
  } catch (err) {
    report.fail('[fleet] throughput', err);
  } finally {
    for (const p of [fleet.proc, noFleet.proc, bare?.proc]) if (p) await stop(p);
  }
}

/** `cincy serve` on the real set, with an admin secret for the fleet API, on a fresh SQLite file. */
async function startServe(ctx, secret, extra) {
  const port = await freePort();
  const db = join(mkdtempSync(join(ctx.workDir, 'fleet-db-')), 'cincy.db');
  const args = [
    'serve',
    '--graph-data',
    join(ctx.realSet, 'graph-data'),
    '--db',
    db,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'warn',
    '--admin-jwt-secret-file',
    secret,
    ...extra,
  ];
  const proc = start(`cincy serve ${extra.join(' ')}`.trim(), ctx.cli, args, { cwd: ctx.root });
  await waitReady(proc, port, performance.now(), { timeoutMs: 120_000 });
  return { proc, port, db };
}

/** The channel with the largest graph, its versions, and cincy's gzip answer the bare server copies. */
async function largestChannel(ctx, port) {
  const agent = keepAliveAgent();
  try {
    let best;
    for (const c of channelsToRequest(join(ctx.realSet, 'graph-data'))) {
      const path = `/graph?channel=${encodeURIComponent(c.name)}&arch=${c.arch}`;
      const res = await get(port, path, { headers: { accept: 'application/json' }, agent });
      if (res.status === 200 && (!best || res.body.length > best.bytes))
        best = { path, bytes: res.body.length, versions: JSON.parse(res.body.toString()).nodes.map((n) => n.version) };
    }
    if (!best || best.versions.length === 0) throw new Error('no channel with releases in the real set');
    await get(port, best.path, { headers: GZIP_ACCEPT, agent }); // compressed once, cached after
    const answer = await get(port, best.path, { headers: GZIP_ACCEPT, agent });
    return { path: best.path, versions: best.versions, answer };
  } finally {
    agent.destroy();
  }
}

/**
 * Each request a cluster of its own: ids i = offset + thread + 2·n (two wrk threads), modulo the id
 * count, as UUIDs; each id at a version of the channel that moves on at every pass over the ids.
 */
function writeLuaScript(workDir) {
  const file = join(workDir, 'fleet-polls.lua');
  writeFileSync(
    file,
    `local ids = tonumber(os.getenv("FLEET_IDS"))
local path = os.getenv("FLEET_PATH")
local versions = {}
for v in string.gmatch(os.getenv("FLEET_VERSIONS"), "[^,]+") do versions[#versions + 1] = v end
local threads = 0
function setup(thread)
  thread:set("thread_index", threads)
  threads = threads + 1
end
local n = 0
local offset = 0
function init(args)
  offset = tonumber(args[1] or "0")
end
function request()
  local k = offset + thread_index + 2 * n
  n = n + 1
  local i = k % ids
  local pass = math.floor(k / ids)
  local version = versions[((i + pass) % #versions) + 1]
  local id = string.format("%08x-0000-4000-8000-%012x", i, i)
  return wrk.format(nil, path .. "&id=" .. id .. "&version=" .. version)
end
`,
  );
  return file;
}

async function storedClusters(port, token) {
  const res = await get(port, '/api/v1/fleet?limit=1', { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET /api/v1/fleet → ${res.status}: ${res.body.toString().slice(0, 200)}`);
  return JSON.parse(res.body.toString()).clusters;
}

async function lastFlushSeconds(port) {
  const text = (await get(port, '/metrics')).body.toString();
  const m = /^cincy_fleet_last_flush_seconds (\S+)$/m.exec(text);
  return m ? Number(m[1]) : NaN;
}

/** p50 and max of each fleet read over the stored fleet, one keep-alive connection. */
async function apiLatency(report, port, token) {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const agent = keepAliveAgent();
  try {
    for (const path of [
      '/api/v1/fleet',
      '/api/v1/fleet/clusters?limit=100',
      '/api/v1/fleet/clusters?stranded=true&limit=100',
      '/api/v1/fleet/exposure',
      '/api/v1/fleet/updates',
    ]) {
      const ms = [];
      for (let i = 0; i < API_SAMPLES; i++) {
        const res = await get(port, path, { headers, agent, timeoutMs: 60_000 });
        if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${res.body.toString().slice(0, 200)}`);
        ms.push(res.ms);
      }
      report.add(`GET ${path} over the stored fleet, p50 (max) of ${API_SAMPLES}`, INPUT, percentile(ms, 50), {
        unit: 'ms',
        note: ` (${Math.max(...ms).toFixed(0)} ms)`,
      });
    }
  } finally {
    agent.destroy();
  }
}

function fileSize(db) {
  return ['', '-wal'].reduce((sum, s) => {
    try {
      return sum + statSync(db + s).size;
    } catch {
      return sum;
    }
  }, 0);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
