// A hostile fleet against `cincy serve`: anonymous polls naming junk channels, arches and versions by
// the thousand (up to 14 KB each), `id=` repeated 3,500 times in one URL, one id flipping between two
// versions, and new ids filling the cap while real clusters keep polling; then a cluster's report
// token sending reports as large as may be by the thousand, and reports for other clusters with it;
// readers looping on the fleet API and on mirror-plan; webhook deliveries replayed, and subscriptions
// redirecting to or naming what only the server reaches (hostileWebhooks.mjs).
// /graph's p99 is measured during each attack, and the database is read after it: what the records
// hold must stay bounded by the graph's names, the cap and the updates kept per cluster, every real
// cluster must still be there, and no report may land under another cluster's id.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { get, keepAliveAgent } from '../bench/http.mjs';
import { peakRssMb, run, stop } from '../bench/procs.mjs';
import { mintToken } from '../bench/admin.mjs';
import { percentile } from '../bench/report.mjs';
import { largestChannelPath, startServe } from './server.mjs';
import { webhookAttacks } from './hostileWebhooks.mjs';
import { fleetReaderLoops, mirrorPlanLoops } from '../bench/fleetReads.mjs';

const ROOT = join(import.meta.dirname, '..', '..');

const CAP = 2000;
const REAL = 200;
const clusterId = (prefix, n) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** /graph one request at a time on a keep-alive connection while `attack` runs; the p99 in ms. */
async function p99During(port, path, attack) {
  const agent = keepAliveAgent();
  const times = [];
  let done = false;
  const attacking = attack().finally(() => (done = true));
  while (!done || times.length < 50) {
    const res = await get(port, path, { headers: { accept: 'application/json' }, agent });
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}`);
    times.push(res.ms);
  }
  await attacking;
  agent.destroy();
  return percentile(times, 99);
}

/** Sends `count` GETs of `pathOf(i)` from 4 connections at once. */
async function send(port, count, pathOf) {
  let next = 0;
  const one = async () => {
    const agent = keepAliveAgent();
    while (next < count) {
      const res = await get(port, pathOf(next++), { agent });
      if (res.status >= 500) throw new Error(`${res.status} for a poll`);
    }
    agent.destroy();
  };
  await Promise.all([one(), one(), one(), one()]);
}

/** A report nearly as large as the route takes (1 MB: 400 operators, 256 history entries), its names made of `n`. */
function hugeReport(id, n) {
  const at = (h) => new Date(Date.UTC(2026, 0, 1) + h * 3_600_000 + n).toISOString();
  const history = Array.from({ length: 256 }, (_, i) => ({
    state: i % 3 ? 'Completed' : 'Partial',
    version: `4.${n % 97}.${255 - i}`,
    startedTime: at(255 - i),
    completionTime: at(256 - i),
  }));
  const condition = { type: 'Degraded', status: 'True', reason: 'r'.repeat(1024), message: 'm'.repeat(900) };
  return {
    clusterID: id,
    clusterVersion: {
      spec: { clusterID: id, channel: 'c'.repeat(100) },
      status: { desired: { version: history[0].version }, history, conditions: [{ ...condition, type: 'Failing' }] },
    },
    clusterOperators: Array.from({ length: 400 }, (_, i) => ({
      metadata: { name: `${'o'.repeat(240)}-${n}-${i}` },
      status: { conditions: [condition] },
    })),
  };
}

/**
 * POSTs `count` reports of `bodyOf(i)` with `token` from 2 connections; the statuses seen, counted. A
 * report refused from its headers alone (over the rate limit) has its connection closed before its body
 * is read: the sender sees the connection closed (`closed`), not the answer.
 */
async function report(url, token, count, bodyOf) {
  const statuses = {};
  let next = 0;
  const one = async () => {
    while (next < count) {
      let status;
      try {
        const res = await fetch(`${url}/api/v1/fleet/reports`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(bodyOf(next++)),
        });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        status = 'closed';
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all([one(), one()]);
  return statuses;
}

const omitOther = ({ other: _other, impersonated: _taken, ...statuses }) => statuses;

export async function hostileFleet({ cli, graphData, workDir, log, root = ROOT }) {
  const server = await startServe({
    cli,
    graphData,
    workDir,
    extra: ['--fleet-max-clusters', String(CAP), '--fleet-flush-interval', '1s'],
  });
  const { port } = server;
  const db = join(server.dir, 'cincy.db');
  try {
    const path = await largestChannelPath(server.url);
    const channel = new URL(path, server.url).searchParams.get('channel');
    await send(port, 400, () => path); // warm: the first answers make and compress the view
    const quiet = await p99During(port, path, () => new Promise((r) => setTimeout(r, 1000)));
    const junk = (i, n) => `${i}-`.padEnd(n, 'x');
    const attacks = [
      [
        '8,000 polls naming junk channels (14 KB), arches (500 B) and versions (60 B)',
        () =>
          send(
            port,
            8000,
            (i) =>
              `/graph?channel=${junk(i, 14_000)}&arch=${junk(i, 500).replace(/-/g, '')}&version=${junk(i, 60)}&id=${clusterId('aaaaaaaa', i)}`,
          ),
      ],
      [
        '1,000 URLs each repeating id= 3,500 times',
        () => send(port, 1000, () => `/graph?channel=${channel}&${'id=&'.repeat(3500)}`),
      ],
      [
        'one id flipping between two versions, 8,000 times',
        () =>
          send(
            port,
            8000,
            (i) =>
              `/graph?channel=${channel}&arch=amd64&id=${clusterId('bbbbbbbb', 1)}&version=${i % 2 ? '4.15.9' : '4.15.8'}`,
          ),
      ],
      [
        `${REAL} real clusters polling among 8,000 new ids (cap ${CAP})`,
        () =>
          send(port, 8000, (i) =>
            i % 100 === 0
              ? `/graph?channel=${channel}&arch=amd64&id=${clusterId('cccccccc', (i / 100) % REAL)}`
              : `/graph?channel=${channel}&arch=amd64&id=${clusterId('dddddddd', i)}`,
          ),
      ],
    ];
    // A cluster's own report token: as large a report as may be, by the thousand, and reports for
    // other clusters (an id of a real one among them) with it.
    const reporter = clusterId('eeeeeeee', 1);
    const reportToken = await mintToken(cli, join(server.dir, 'secret'), 'fleet:report', ['--cluster-id', reporter]);
    const reported = {};
    attacks.push(
      [
        "1,000 reports of 1 MB from one cluster's token",
        async () =>
          Object.assign(reported, await report(server.url, reportToken, 1000, (i) => hugeReport(reporter, i))),
      ],
      [
        '1,000 reports for other clusters with that token',
        async () => {
          const other = await report(server.url, reportToken, 1000, (i) =>
            hugeReport(clusterId('cccccccc', i % REAL), i),
          );
          reported.impersonated = other['200'] ?? 0;
          reported.other = other;
        },
      ],
    );
    // Readers looping on the fleet API and on mirror-plan, from a process of their own (getLoops.mjs).
    const readToken = await mintToken(cli, join(server.dir, 'secret'), 'fleet:read');
    const graph = await (await fetch(`${server.url}${path}`, { headers: { accept: 'application/json' } })).json();
    const sources = graph.nodes.slice(0, 199).map((n) => n.version);
    attacks.push([
      '4 readers looping on the fleet API and 4 on mirror-plan (199 sources), 8 s',
      async () => {
        const loops = [...fleetReaderLoops(readToken, 4), ...mirrorPlanLoops(sources.at(-1), sources, 4)];
        const script = join(root, 'scripts', 'bench', 'getLoops.mjs');
        const out = await run(
          'getLoops',
          process.execPath,
          [script, String(port), '8', ...loops.map((l) => JSON.stringify(l))],
          {
            timeoutMs: 120_000,
          },
        );
        const statuses = JSON.parse(out.trim().split('\n').pop());
        const failed = Object.keys(statuses).filter((k) => !/ (200|429)$/.test(k));
        return { held: failed.length === 0, result: `answers: ${JSON.stringify(statuses)}` };
      },
    ]);
    attacks.push(...webhookAttacks({ cli, graphData, workDir, root, shipped: server }));
    const Database = createRequire(import.meta.url)('better-sqlite3');
    /** What the store holds once the polls so far are written (a flush each second; read beside the server). */
    const stored = async () => {
      await new Promise((r) => setTimeout(r, 1500));
      const store = new Database(db, { readonly: true });
      const one = (sql) => Object.values(store.prepare(sql).get())[0] ?? 0;
      const found = {
        clusters: one('SELECT COUNT(*) FROM fleet_clusters'),
        groups: one('SELECT COUNT(*) FROM (SELECT DISTINCT channel, arch, version FROM fleet_clusters)'),
        longest: one(
          "SELECT MAX(MAX(LENGTH(channel), LENGTH(arch), LENGTH(COALESCE(version, '')))) FROM fleet_clusters",
        ),
        updates: one('SELECT COUNT(*) FROM fleet_updates'),
        counted: one('SELECT COUNT(*) FROM fleet_updates WHERE suspicious = 0'),
        real: one(`SELECT COUNT(*) FROM fleet_clusters WHERE id LIKE 'cccccccc-%'`),
        reports: one('SELECT COUNT(*) FROM fleet_reports'),
        outcomes: one('SELECT COUNT(*) FROM fleet_outcomes'),
        summary: one('SELECT COALESCE(MAX(LENGTH(summary)), 0) FROM fleet_reports'),
      };
      store.close();
      return { ...found, mb: statSync(db).size / 1024 / 1024 };
    };
    const before = await stored();
    const rows = [];
    for (const [name, attack] of attacks) {
      log(`hostile fleet: ${name}`);
      const t0 = Date.now();
      let outcome;
      const p99 = await p99During(port, path, async () => (outcome = await attack()));
      rows.push({ name, seconds: (Date.now() - t0) / 1000, p99, ...outcome, ...(await stored()) });
    }
    // The real clusters poll once more, as they would at their next interval, after the flood.
    await send(port, REAL, (i) => `/graph?channel=${channel}&arch=amd64&id=${clusterId('cccccccc', i)}`);
    const after = await stored();
    const rss = peakRssMb(server.proc.pid);
    // The bound on /graph's p99 is for the attacks on the fleet's records. The readers and the webhook
    // attacks run processes of their own beside the server (loops, other servers) on the same cores: they
    // are held to their own results, and their p99 is shown, not bounded.
    const worst = Math.max(...rows.filter((r) => r.result === undefined).map((r) => r.p99));
    const bounded = rows.every(
      (r) =>
        r.clusters <= CAP &&
        r.groups <= 10 &&
        r.longest <= 64 &&
        r.updates <= 20 * CAP &&
        r.reports <= 1 &&
        r.outcomes <= 20 &&
        r.summary <= 45_000,
    );
    // The reporter's reports were taken up to its rate limit (the rest refused), none for another cluster.
    const taken = reported['200'] ?? 0;
    const reportsHeld = taken > 0 && reported.impersonated === 0;
    // The flipping id took one update at most: every later change started from a flip.
    const flipped = rows[2].counted <= 1;
    const othersHeld = rows.every((r) => r.held !== false);
    const held =
      bounded && flipped && reportsHeld && othersHeld && after.real === REAL && worst <= 10 * Math.max(quiet, 1);
    return {
      scenario:
        'a hostile fleet: junk names, repeated ids, a flipping id, the cap filled, huge and impersonating reports, readers looping, replayed and redirected webhooks (table below)',
      tried: `${rows.length} attacks`,
      held,
      detail:
        `after every attack at most ${CAP} clusters, 10 groups, names of 64 characters, ${20 * CAP} updates: ` +
        `${bounded ? 'yes' : '**no**'}; updates counted of the flipping id: ${rows[2].counted}; ` +
        `${after.real}/${REAL} real clusters there at the end; huge reports: ${JSON.stringify(omitOther(reported))} ` +
        `(the rest over the token's rate limit), for other clusters: ${JSON.stringify(reported.other)}, ` +
        `taken ${reported.impersonated ?? '?'} (at most 1 report, 20 updates, a 45 KB summary kept); database ` +
        `${before.mb.toFixed(1)} MB before, ${after.mb.toFixed(1)} MB after; peak RSS ${rss.toFixed(0)} MB; ` +
        `${rows
          .filter((r) => r.result)
          .map((r) => `${r.name}: ${r.held ? 'held' : '**did not hold**'} (${r.result})`)
          .join('; ')}; ` +
        `/graph p99 ${quiet.toFixed(2)} ms quiet, at worst ${worst.toFixed(2)} ms during the attacks on the records (at most 10×, taken as at least 1 ms)`,
      attacks: rows,
    };
  } finally {
    if (!server.proc.exited) await stop(server.proc);
  }
}
