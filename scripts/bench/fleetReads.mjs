// Expensive reads beside the graph: `cincy serve` on the real set with 300,000 clusters recorded (spread
// over the served channels and their versions, some stranded, a tenth moved to a newer version), and
// /graph's p99 measured one request at a time on a keep-alive connection, idle, then while four
// readers loop on the fleet API (the summary, stranded clusters, the exposure, the updates: a fleet:read
// token each) and four on mirror-plan with 199 sources, all from this one address. Prints the p99s, the
// readers' answers by status, and the server's peak RSS. `CINCY_BENCH_CLI` runs another build's CLI
// (an older commit's, for the figures before).
//   npm run bench -- --only fleet-reads
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { get, keepAliveAgent } from './http.mjs';
import { startServe } from '../reliability/server.mjs';
import { mintToken } from './admin.mjs';
import { peakRssMb, removeOnExit, run, stop } from './procs.mjs';
import { atMost, percentile } from './report.mjs';
import { performance } from 'node:perf_hooks';

const INPUT = 'real';
const CLUSTERS = 300_000;
const SECONDS = 15;
const READERS = 4;
const PLANNERS = 4;
const SOURCES = 199;

export async function benchFleetReads(report, ctx) {
  const cli = process.env.CINCY_BENCH_CLI ?? ctx.cli;
  const dir = removeOnExit(mkdtempSync(join(ctx.workDir, 'fleet-reads-')));
  const db = join(dir, 'cincy.db');
  const graphData = join(ctx.realSet, 'graph-data');
  // On the same folder each time: its database and admin secret (reliability/server.mjs).
  const serve = () => startServe({ cli, graphData, workDir: ctx.workDir, dir });
  // A first start imports the set; the clusters are written beside it, then the server starts on them.
  let server = await serve();
  const served = await servedVersions(server.port);
  await stop(server.proc);
  ctx.log(`fleet reads: recording ${CLUSTERS.toLocaleString('en')} clusters`);
  // In a process of its own: the garbage of 300,000 records would otherwise pause this one's timings.
  const filler = join(ctx.root, 'scripts', 'bench', 'fleetFill.mjs');
  const byChannel = Object.fromEntries(served.byChannel);
  await run('fleetFill', process.execPath, [filler, db, String(CLUSTERS), JSON.stringify(byChannel)], {
    timeoutMs: 600_000,
  });
  server = await serve();
  try {
    const { port } = server;
    const path = `/graph?channel=${served.largest}&arch=amd64`;
    const token = await mintToken(cli, join(dir, 'secret'), 'fleet:read');
    await p99For(port, path, 2); // warm: the first answers make and compress the view
    const idle = await p99For(port, path, SECONDS);
    const fleetLoops = fleetReaderLoops(token, READERS);
    const planLoops = mirrorPlanLoops(served.target, served.all.slice(0, SOURCES), PLANNERS);
    const control = Array.from({ length: READERS + PLANNERS }, () => ({ paths: ['/readyz'] }));
    const label = `${CLUSTERS / 1000}k clusters, SQLite`;
    const target = atMost(Number((2 * idle).toFixed(2)), 'ms (2× idle)');
    report.add(`/graph p99, idle (${label})`, INPUT, idle, { unit: 'ms', digits: 2 });
    const runs = [
      [
        `${READERS} readers looping on the fleet API and ${PLANNERS} on mirror-plan (${SOURCES} sources)`,
        [...fleetLoops, ...planLoops],
      ],
      [`${READERS} readers looping on the fleet API`, fleetLoops],
      [`${PLANNERS} looping on mirror-plan (${SOURCES} sources)`, planLoops],
      [`control: ${READERS + PLANNERS} loops on /readyz, the cheapest route`, control],
    ];
    for (const [name, loops] of runs) {
      ctx.log(`fleet reads: /graph beside ${name}`);
      const { p99, statuses } = await p99Beside(ctx.root, port, path, loops);
      report.add(`/graph p99, ${name}`, INPUT, p99, { unit: 'ms', digits: 2, target });
      report.add(`  their answers by route and status (${SECONDS} s)`, INPUT, JSON.stringify(statuses));
    }
    report.add(`server peak RSS (${label})`, INPUT, peakRssMb(server.proc.pid), { unit: 'MB', digits: 0 });
  } finally {
    await stop(server.proc);
  }
}

const FLEET_READS = [
  '/api/v1/fleet',
  '/api/v1/fleet/clusters?stranded=true',
  '/api/v1/fleet/exposure',
  '/api/v1/fleet/updates',
];

/** `count` loops (getLoops.mjs specs) going round the fleet API's reads with `token`, each from another read. */
export function fleetReaderLoops(token, count) {
  const headers = { authorization: `Bearer ${token}` };
  return Array.from({ length: count }, (_, i) => {
    const k = i % FLEET_READS.length;
    return { paths: [...FLEET_READS.slice(k), ...FLEET_READS.slice(0, k)], headers };
  });
}

/** `count` loops asking mirror-plan for a path from every one of `sources` to `to`. */
export function mirrorPlanLoops(to, sources, count) {
  return Array.from({ length: count }, () => ({ paths: [`/api/v1/mirror-plan?to=${to}&from=${sources.join(',')}`] }));
}

/** /graph's p99 while `loops` run (getLoops.mjs, in a process of its own, so that their answers do not hold up the timed requests). */
async function p99Beside(root, port, path, loops) {
  const script = join(root, 'scripts', 'bench', 'getLoops.mjs');
  const args = [script, String(port), String(SECONDS), ...loops.map((l) => JSON.stringify(l))];
  const busy = run('getLoops', process.execPath, args, { timeoutMs: (SECONDS + 120) * 1000 });
  await new Promise((r) => setTimeout(r, 500)); // the loops under way
  const p99 = await p99For(port, path, SECONDS - 1);
  const statuses = JSON.parse((await busy).trim().split('\n').pop());
  await new Promise((r) => setTimeout(r, 1000)); // their last answers sent
  return { p99, statuses };
}

/** The served channels' versions: the largest amd64 channel, every version, and a target. */
export async function servedVersions(port) {
  const catalog = JSON.parse((await get(port, '/api/v1/catalog')).body);
  const channels = catalog.channels.filter((c) => (c.releases.amd64 ?? 0) > 0);
  const largest = channels.reduce((a, b) => (b.releases.amd64 > a.releases.amd64 ? b : a)).name;
  const byChannel = new Map();
  for (const c of channels) {
    const graph = JSON.parse(
      (await get(port, `/graph?channel=${c.name}&arch=amd64`, { headers: { accept: 'application/json' } })).body,
    );
    byChannel.set(
      c.name,
      graph.nodes.map((n) => n.version),
    );
  }
  const all = [...new Set([...byChannel.values()].flat())].sort();
  const target = byChannel.get(largest).at(-1);
  return { largest, byChannel, all, target };
}

/** /graph one request at a time on a keep-alive connection for `seconds`; the p99 in ms. */
async function p99For(port, path, seconds) {
  const agent = keepAliveAgent();
  const times = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const res = await get(port, path, { headers: { accept: 'application/json' }, agent });
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}`);
    times.push(res.ms);
  }
  agent.destroy();
  return percentile(times, 99);
}
