// The replicas part of the bench (issue 16), on the real conformance set and a PostgreSQL server of its
// own (scripts/lib/postgres.mjs):
//   - import+build on each engine: `cincy import` (spawn → exit) and `cincy serve` (spawn → /readyz 200)
//     on a fresh database, three runs each, the medians and PostgreSQL's over SQLite's;
//   - write → visible on every replica: three replicas, 100 channel writes spread over them, each timed
//     from its request to the moment every replica's /graph shows it (p50 and max); then 30 risk
//     writes, which every replica builds anew for;
//   - cached /graph throughput through nginx (deploy/nginx/nginx.conf as shipped) in front of one
//     replica and of two, with the same wrk command in turn, and the ratio of the medians.
import { mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startPostgres, postgresBin } from '../lib/postgres.mjs';
import { localNginxConfig, NGINX, nginxArgs } from '../lib/nginxProxy.mjs';
import { freePort, get, keepAliveAgent, waitReady } from './http.mjs';
import { writeAdminSecret, mintToken } from './admin.mjs';
import { hasCommand, run, start, stop } from './procs.mjs';
import { atMost, percentile } from './report.mjs';
import { runWrk, wrkCaveats } from './wrk.mjs';

export const REPLICA_TARGETS = { visibleMax: atMost(1000, 'ms'), importRatio: atMost(2) };

const WRITES = 100;
const RISK_WRITES = 30;
const RUNS = 3;
const ROUNDS = 3;
const M = {
  importSqlite: 'import (cincy import, spawn → exit), SQLite',
  importPostgres: 'import (cincy import, spawn → exit), PostgreSQL',
  importRatio: 'import time ratio PostgreSQL/SQLite',
  coldSqlite: 'import+build (serve spawn → /readyz 200), SQLite',
  coldPostgres: 'import+build (serve spawn → /readyz 200), PostgreSQL',
  coldRatio: 'import+build time ratio PostgreSQL/SQLite',
  visibleP50: `write → visible on all 3 replicas, p50 (${WRITES} writes)`,
  visibleMax: `write → visible on all 3 replicas, max (${WRITES} writes)`,
  riskP50: `risk write → visible on all 3 replicas, p50 (${RISK_WRITES} writes, a full build on each)`,
  riskMax: `risk write → visible on all 3 replicas, max (${RISK_WRITES} writes, a full build on each)`,
  one: 'cached req/s through nginx, 1 replica',
  two: 'cached req/s through nginx, 2 replicas',
  ratio: 'req/s ratio 2 replicas/1 replica through nginx',
};
const INPUT = 'real';

/** `ctx`: { root, cli, realSet, workDir, log }. */
export async function benchReplicas(report, ctx) {
  if (!postgresBin()) {
    report.notRun(Object.values(M), INPUT, 'PostgreSQL not installed (apt-get install postgresql)');
    return;
  }
  const pg = await startPostgres();
  try {
    await step(report, 'import+build', [M.importRatio, M.coldRatio], () => importAndBuild(report, ctx, pg));
    await step(report, 'write → visible', [M.visibleP50, M.visibleMax, M.riskP50, M.riskMax], () =>
      writesVisible(report, ctx, pg),
    );
    await step(report, 'nginx', [M.one, M.two, M.ratio], () => throughNginx(report, ctx, pg));
  } finally {
    await pg.close();
  }
}

async function step(report, name, rows, fn) {
  try {
    await fn();
  } catch (err) {
    report.fail(`[replicas] ${name}`, err);
    report.notRun(rows, INPUT, 'failed');
  }
}

/** Spawns `cincy serve` on `db`; resolves once /readyz is 200, with the time it took. */
async function serve(ctx, db, label, extra = []) {
  const port = await freePort();
  const args = ['serve', '--db', db, '--graph-data', join(ctx.realSet, 'graph-data'), '--port', String(port)];
  args.push('--host', '127.0.0.1', '--log-level', 'warn', ...extra);
  const t0 = performance.now();
  const proc = start(`cincy serve (${label})`, process.execPath, [ctx.cli, ...args]);
  const ready = await waitReady(proc, port, t0, { timeoutMs: 120_000 });
  return { proc, port, ms: ready.ms };
}

async function importAndBuild(report, ctx, pg) {
  const databases = {
    sqlite: () => join(mkdtempSync(join(ctx.workDir, 'engine-')), 'cincy.db'),
    postgres: () => pg.createDatabase(),
  };
  const times = { sqlite: { import: [], cold: [] }, postgres: { import: [], cold: [] } };
  // In turn, engine after engine, so the machine's other work weighs on both alike.
  for (let i = 0; i < RUNS; i++)
    for (const engine of ['sqlite', 'postgres']) {
      const db = await databases[engine]();
      const t0 = performance.now();
      await run('cincy import', process.execPath, [
        ctx.cli,
        'import',
        '--graph-data',
        join(ctx.realSet, 'graph-data'),
        '--db',
        db,
      ]);
      times[engine].import.push(performance.now() - t0);
      const server = await serve(ctx, await databases[engine](), `${engine} cold`);
      times[engine].cold.push(server.ms);
      await stop(server.proc);
    }
  const med = (list) => percentile(list, 50) / 1000;
  const runs = (list) => ` (runs: ${list.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s)`;
  for (const [engine, importRow, coldRow] of [
    ['sqlite', M.importSqlite, M.coldSqlite],
    ['postgres', M.importPostgres, M.coldPostgres],
  ]) {
    report.add(importRow, INPUT, med(times[engine].import), { unit: 's', digits: 2, note: runs(times[engine].import) });
    report.add(coldRow, INPUT, med(times[engine].cold), { unit: 's', digits: 2, note: runs(times[engine].cold) });
  }
  const ratio = (kind) => med(times.postgres[kind]) / med(times.sqlite[kind]);
  report.add(M.importRatio, INPUT, ratio('import'), { digits: 2, target: REPLICA_TARGETS.importRatio });
  report.add(M.coldRatio, INPUT, ratio('cold'), { digits: 2, target: REPLICA_TARGETS.importRatio });
  ctx.log(`[replicas] import ${ratio('import').toFixed(2)}×, import+build ${ratio('cold').toFixed(2)}× SQLite's`);
}

/** Replicas of one database with an admin secret, and a token for writes. */
async function replicas(ctx, db, n) {
  const dir = mkdtempSync(join(ctx.workDir, 'replicas-'));
  const secret = writeAdminSecret(dir);
  const token = await mintToken(ctx.cli, secret, 'channels:write,risks:write');
  const servers = [];
  // One after another: the first imports, the others find the tree imported.
  for (let i = 0; i < n; i++) servers.push(await serve(ctx, db, `replica ${i}`, ['--admin-jwt-secret-file', secret]));
  return { servers, token };
}

async function writesVisible(report, ctx, pg) {
  const { servers, token } = await replicas(ctx, await pg.createDatabase(), 3);
  try {
    const version = JSON.parse((await get(servers[0].port, '/graph?channel=stable-4.16')).body.toString()).nodes[0]
      .version;
    const agents = servers.map(() => keepAliveAgent());
    const ms = [];
    for (let i = 0; i < WRITES; i++) {
      const name = `bench-visible-${i}`;
      const t0 = performance.now();
      const res = await fetch(`http://127.0.0.1:${servers[i % servers.length].port}/api/v1/channels/${name}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ versions: [version] }),
      });
      if (res.status !== 201) throw new Error(`PUT ${name} → ${res.status}: ${await res.text()}`);
      await Promise.all(servers.map((s, j) => visible(s.port, name, agents[j])));
      ms.push(performance.now() - t0);
    }
    report.add(M.visibleP50, INPUT, percentile(ms, 50), { unit: 'ms', target: REPLICA_TARGETS.visibleMax });
    report.add(M.visibleMax, INPUT, Math.max(...ms), { unit: 'ms', target: REPLICA_TARGETS.visibleMax });
    ctx.log(
      `[replicas] write → visible on all: p50 ${percentile(ms, 50).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms`,
    );

    // A risk is more than channels: every replica, the writer included, builds its graph anew.
    const graph = JSON.parse((await get(servers[0].port, '/graph?channel=stable-4.16')).body.toString());
    const [from, to] = graph.edges[0].map((i) => graph.nodes[i].version);
    const risked = [];
    for (let i = 0; i < RISK_WRITES; i++) {
      const name = `BenchRisk${i}`;
      const t0 = performance.now();
      const res = await fetch(`http://127.0.0.1:${servers[i % servers.length].port}/api/v1/risks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          id: `bench-risk-${i}`,
          to,
          // Matched against version+arch, as Cincinnati matches it.
          from: `^${from.replace(/[.]/g, '[.]')}[+]`,
          url: 'https://issues.example/bench',
          name,
          message: 'A risk the bench declares.',
          matchingRules: [{ type: 'Always' }],
        }),
      });
      if (res.status !== 201) throw new Error(`POST risk ${name} → ${res.status}: ${await res.text()}`);
      await Promise.all(servers.map((s, j) => riskVisible(s.port, name, agents[j])));
      risked.push(performance.now() - t0);
    }
    for (const a of agents) a.destroy();
    report.add(M.riskP50, INPUT, percentile(risked, 50), { unit: 'ms', target: REPLICA_TARGETS.visibleMax });
    report.add(M.riskMax, INPUT, Math.max(...risked), { unit: 'ms', target: REPLICA_TARGETS.visibleMax });
  } finally {
    for (const s of servers) await stop(s.proc);
  }
}

/** Resolves once the replica's graph of `channel` has a node; polls every millisecond or so. */
async function visible(port, channel, agent) {
  const end = performance.now() + 30_000;
  for (;;) {
    const res = await get(port, `/graph?channel=${channel}`, { agent, headers: { accept: 'application/json' } });
    if (res.status === 200 && JSON.parse(res.body.toString()).nodes.length > 0) return;
    if (performance.now() > end) throw new Error(`${channel} not visible on :${port} after 30 s`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** Resolves once the replica's stable-4.16 has a conditional edge with the risk `name`. */
async function riskVisible(port, name, agent) {
  const end = performance.now() + 30_000;
  for (;;) {
    const res = await get(port, '/graph?channel=stable-4.16', { agent, headers: { accept: 'application/json' } });
    const graph = JSON.parse(res.body.toString());
    if (graph.conditionalEdges.some((c) => c.risks.some((r) => r.name === name))) return;
    if (performance.now() > end) throw new Error(`risk ${name} not served on :${port} after 30 s`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

async function throughNginx(report, ctx, pg) {
  if (!hasCommand('wrk') || !hasCommand(NGINX)) {
    report.notRun([M.one, M.two, M.ratio], INPUT, 'wrk or nginx missing');
    return;
  }
  const { servers } = await replicas(ctx, await pg.createDatabase(), 2);
  const proxies = [];
  try {
    const conf = readFileSync(join(ctx.root, 'deploy', 'nginx', 'nginx.conf'), 'utf8');
    const at = (s) => `127.0.0.1:${s.port}`;
    // The shipped config as it is; with one replica, both of its upstream entries name that one.
    proxies.push(await startProxy(ctx, conf, [at(servers[0]), at(servers[0])], 'one'));
    proxies.push(await startProxy(ctx, conf, [at(servers[0]), at(servers[1])], 'two'));
    const path = '/graph?channel=stable-4.16';
    const runs = { one: [], two: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const p of proxies) runs[p.name].push(await runWrk(`nginx, ${p.name}`, `http://127.0.0.1:${p.port}${path}`));
    const median = (list) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)];
    for (const [name, row] of [
      ['one', M.one],
      ['two', M.two],
    ]) {
      const r = median(runs[name]);
      const note = ` (median of ${runs[name].map((x) => x.rps.toFixed(0)).join(', ')}; p99 ${r.p99Ms.toFixed(2)} ms)${wrkCaveats(r)}`;
      report.add(row, INPUT, r.rps, { digits: 0, note });
    }
    report.add(M.ratio, INPUT, median(runs.two).rps / median(runs.one).rps, {
      digits: 2,
      note: ' (wrk, nginx and the replicas share the cores)',
    });
  } finally {
    for (const p of proxies) await stop(p.proc);
    for (const s of servers) await stop(s.proc);
  }
}

/** nginx with the shipped config, its two upstream entries at `addresses`. */
async function startProxy(ctx, conf, addresses, name) {
  const dir = mkdtempSync(join(ctx.workDir, `nginx-${name}-`));
  chmodSync(dir, 0o755); // nginx's workers drop root
  const port = await freePort();
  const file = join(dir, 'nginx.conf');
  const local = localNginxConfig(conf, { 'cincy-1:8080': addresses[0], 'cincy-2:8080': addresses[1] }, dir, port);
  // The access log goes to a file, not to this process (the shipped config logs to /dev/stdout).
  writeFileSync(file, local.replace('access_log /dev/stdout', `access_log ${join(dir, 'access.log')}`));
  const proc = start(`nginx (${name})`, NGINX, nginxArgs(dir, file, ' daemon off;'));
  await waitReady(proc, port, performance.now(), { timeoutMs: 10_000 });
  return { name, port, proc };
}
