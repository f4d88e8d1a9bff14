// The rollouts part of the bench (issue 42, outcome 5): what a phased rollout costs /graph. One
// `cincy serve` on the real set (fresh SQLite file, admin secret, polls recorded as serve records them
// by default), the largest public channel by node count, and the release of it with the most edges
// into it as the target. wrk asks that channel with a fresh random cluster id per request (a wrk Lua
// script) and, as `version=`, a source of the targets, in three states of the same server, one after
// the other (a rollout cannot be taken back: a cancelled one still governs its edges):
//   none — no rollout;
//   one  — a rollout of the target declared with start = now − 30 min and duration PT1H, canaries
//          omitted, so about half the ids are offered its edges during the run;
//   two  — a second rollout on the same channel (the release with the next most edges into it), the
//          same window: four variants of the view, picked per request.
// Before measuring a state, the graph of a few dozen ids is read and each id's edges into the targets
// checked against where its turn falls (the hash of graph/rollouts.ts placeOf, computed here): some must
// be offered the edges and some not, or the part fails. Each state gets ROUNDS wrk runs, the better
// reported with both; each is followed by a run on a control channel that no rollout touches, with ids
// from a fixed pool (no new clusters), whose req/s shows what changed between the states besides the
// rollout channel's own path: the machine (hypervisor steal, given too) and the server's background work.
// Every request of the measured runs records a new cluster, so the fleet grows from state to state (past
// serve's default cap of 1,000,000 clusters, new ones are left out); the clusters stored and those left
// out before each state are given. CINCY_BENCH_ROLLOUT_IDS=N takes the measured runs' ids from a pool of
// N instead, for a fleet of the same size in every state. The target is one/none ≥ 0.9 in req/s.
//   npm run bench -- --only rollouts
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { get, keepAliveAgent } from './http.mjs';
import { startServe } from '../reliability/server.mjs';
import { mintToken } from './admin.mjs';
import { groupCpuMs, hasCommand, removeOnExit, stop } from './procs.mjs';
import { atLeast } from './report.mjs';
import { runWrk, wrkCaveats } from './wrk.mjs';

export const ROLLOUTS_TARGETS = { ratio: atLeast(0.9) };

const INPUT = 'real';
/** wrk runs per state (each followed by one on the control channel); the best is reported, with all. */
const ROUNDS = 2;
/** Ids whose graph is read to check that a rollout took effect. */
const CHECK_IDS = 40;
/** The rollouts' window: started half of it ago, so about half the ids are offered the edges. */
const DURATION = 'PT1H';
const DURATION_MS = 3600_000;
const STARTED_AGO_MS = 30 * 60_000;
/** How long a declared rollout may take to be served (the rebuild after the write runs in the background). */
const VISIBLE_WITHIN_MS = 30_000;
const JSON_ACCEPT = { accept: 'application/json' };
const GZIP_ACCEPT = { accept: 'application/json', 'accept-encoding': 'gzip' };
const STATES = ['none', 'one', 'two'];
/** Cluster ids the control runs take theirs from: recorded once, then no new cluster. */
const CONTROL_IDS = 1000;
/**
 * `CINCY_BENCH_ROLLOUT_IDS=N`: the measured runs take their ids at random from a pool of N (recorded by
 * the warm-up runs) instead of a fresh one per request, so the fleet stays the same size from state to state.
 */
const ID_POOL = Number(process.env.CINCY_BENCH_ROLLOUT_IDS ?? 0);
const IDS = ID_POOL > 0 ? `ids from a pool of ${ID_POOL}` : 'a fresh id per request';
const M = {
  rps: {
    none: `/graph req/s, ${IDS}, no rollout`,
    one: `/graph req/s, ${IDS}, one rollout active (~half the ids offered)`,
    two: `/graph req/s, ${IDS}, two rollouts active on the channel`,
  },
  p99: {
    none: '/graph p99 (wrk), no rollout',
    one: '/graph p99 (wrk), one rollout',
    two: '/graph p99 (wrk), two rollouts',
  },
  cpu: {
    none: 'server CPU per request, no rollout',
    one: 'server CPU per request, one rollout',
    two: 'server CPU per request, two rollouts',
  },
  control: {
    none: 'control: req/s on a channel without rollouts (ids from a pool), no rollout',
    one: 'control: req/s on a channel without rollouts (ids from a pool), one rollout on the measured one',
    two: 'control: req/s on a channel without rollouts (ids from a pool), two rollouts on the measured one',
  },
  steal: {
    none: 'CPU stolen by the hypervisor during the runs, no rollout',
    one: 'CPU stolen by the hypervisor during the runs, one rollout',
    two: 'CPU stolen by the hypervisor during the runs, two rollouts',
  },
  fleet: {
    none: 'clusters stored / new ones left out at the cap, before the state: no rollout',
    one: 'clusters stored / new ones left out at the cap, before the state: one rollout',
    two: 'clusters stored / new ones left out at the cap, before the state: two rollouts',
  },
  ratioOne: 'req/s ratio one rollout/no rollout (best runs)',
  ratioTwo: 'req/s ratio two rollouts/no rollout (best runs)',
  cpuRatioOne: 'CPU per request ratio no rollout/one rollout (better runs)',
  cpuRatioTwo: 'CPU per request ratio no rollout/two rollouts (better runs)',
  controlRatioOne: 'control req/s ratio, one rollout/no rollout (what changed besides the channel’s path)',
  controlRatioTwo: 'control req/s ratio, two rollouts/no rollout',
};
const RATIO_TARGETS = { [M.ratioOne]: ROLLOUTS_TARGETS.ratio, [M.ratioTwo]: ROLLOUTS_TARGETS.ratio };

/** `ctx`: { root, cli, realSet, workDir, log }. */
export async function benchRollouts(report, ctx) {
  if (!hasCommand('wrk')) {
    report.notRun([...Object.values(M.rps), M.ratioOne, M.ratioTwo], INPUT, 'wrk missing', RATIO_TARGETS);
    return;
  }
  const dir = removeOnExit(mkdtempSync(join(ctx.workDir, 'rollouts-')));
  const server = await startServe({
    cli: ctx.cli,
    graphData: join(ctx.realSet, 'graph-data'),
    workDir: ctx.workDir,
    dir,
  });
  try {
    await measure(report, ctx, server);
    if (server.proc.exited)
      throw new Error(`cincy serve exited during the bench (${server.proc.code ?? server.proc.signal})`);
  } finally {
    await stop(server.proc);
  }
}

async function measure(report, ctx, server) {
  const { port } = server;
  const { channel, control, nodes, targets } = await choose(port);
  const [first, second] = targets;
  report.add(
    'rollout channel (largest public, by nodes) and targets (most edges into them)',
    INPUT,
    `${channel} amd64, ${nodes} nodes; ${targets.map((t) => `${t.version} (${t.into} edges in)`).join(', ')}`,
  );
  report.add('control channel (second largest, no rollout)', INPUT, control);
  ctx.log(`rollouts: ${channel} (${nodes} nodes), targets ${targets.map((t) => t.version).join(', ')}`);

  const sources = [...new Set(targets.flatMap((t) => t.sources))];
  const script = writeLuaScript(ctx.workDir);
  const env = { ROLLOUT_VERSIONS: sources.join(',') };
  const paths = { rollout: graphPath(channel), control: graphPath(control) };
  /** `from`: the pool's ids in turn from there (filling it), instead of at random. */
  const wrk = async (name, which, from = -1) => {
    const cpuBefore = groupCpuMs(server.proc.pid);
    const machineBefore = machineCpu();
    const r = await runWrk(name, `http://127.0.0.1:${port}${paths[which]}`, {
      script,
      // The control's pool and the measured runs' are told apart by the ids' first group.
      scriptArgs: [
        String(randomInt(2 ** 30)),
        ...(which === 'control' ? [String(CONTROL_IDS), '0'] : [String(ID_POOL), '1']),
        String(from),
      ],
      env,
    });
    const machine = machineCpu();
    const stealShare = (machine.steal - machineBefore.steal) / (machine.total - machineBefore.total);
    return { ...r, cpuUs: ((groupCpuMs(server.proc.pid) - cpuBefore) * 1000) / r.requests, stealShare };
  };

  // Throwaway runs warm the JIT, give the fleet its first 100,000-odd clusters (so the first measured
  // state is not the coldest) or every id of the pool, and the control's pool.
  ctx.log('rollouts: warm-up runs (not measured)');
  if (ID_POOL > 0) for (let from = 0; from < ID_POOL;) from += (await wrk('warm-up', 'rollout', from)).requests;
  else await wrk('warm-up', 'rollout');
  await wrk('warm-up control', 'control');

  const token = await mintToken(ctx.cli, join(server.dir, 'secret'), 'rollouts:write,fleet:read');
  const runs = {};
  const checked = {};
  for (const state of STATES) {
    if (state === 'two' && !second) break;
    if (state !== 'none') {
      const t = state === 'one' ? first : second;
      const declared = await declare(port, token, channel, t.version);
      t.rollout = declared;
      ctx.log(`rollouts: declared ${declared.id} of ${t.version} in ${channel} (start ${declared.start})`);
    }
    const active = targets.filter((t) => t.rollout);
    checked[state] = await verifyServed(port, channel, targets, active);
    checked[state].fleet = await fleetCounts(port, token);
    await warmVariants(port, channel, checked[state].ids);
    runs[state] = { rollout: [], control: [] };
    ctx.log(`rollouts: state '${state}', wrk ${ROUNDS} rounds → ${channel} (and ${control}), ${IDS}`);
    for (let round = 0; round < ROUNDS; round++) {
      runs[state].rollout.push(await wrk(`${state} ${round + 1}`, 'rollout'));
      runs[state].control.push(await wrk(`${state} control ${round + 1}`, 'control'));
    }
  }

  for (const state of STATES) {
    const c = checked[state];
    if (!c) continue;
    report.add(`ids offered the edges, of ${CHECK_IDS} read (${stateName(state)})`, INPUT, c.summary);
    report.add(M.fleet[state], INPUT, `${c.fleet.stored} / ${c.fleet.overCap}`);
  }
  const best = (list) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
  const runsNote = (list) => ` (runs: ${list.map((x) => x.rps.toFixed(0)).join(', ')}; the better one)`;
  for (const state of STATES) {
    const r = runs[state];
    if (!r) {
      report.notRun([M.rps[state], M.p99[state], M.cpu[state]], INPUT, 'the channel has one target only');
      continue;
    }
    const b = best(r.rollout);
    report.add(M.rps[state], INPUT, b.rps, { digits: 0, note: `${runsNote(r.rollout)}${wrkCaveats(b)}` });
    report.add(M.p99[state], INPUT, b.p99Ms, {
      unit: 'ms',
      digits: 2,
      note: ` (of the better run; other: ${r.rollout
        .filter((x) => x !== b)
        .map((x) => x.p99Ms.toFixed(2))
        .join(', ')} ms)`,
    });
    report.add(M.cpu[state], INPUT, b.cpuUs, {
      unit: 'µs',
      digits: 1,
      note: ` (of the better run; runs: ${r.rollout.map((x) => x.cpuUs.toFixed(1)).join(', ')})`,
    });
    const cb = best(r.control);
    report.add(M.control[state], INPUT, cb.rps, { digits: 0, note: `${runsNote(r.control)}${wrkCaveats(cb)}` });
    const steal = [...r.rollout, ...r.control].map((x) => x.stealShare * 100);
    report.add(M.steal[state], INPUT, Math.max(...steal), {
      unit: '%',
      digits: 0,
      note: ` (the most of the ${steal.length} runs; each: ${steal.map((x) => x.toFixed(0)).join(', ')} %)`,
    });
  }
  const ratio = (state) => best(runs[state].rollout).rps / best(runs.none.rollout).rps;
  const cpuRatio = (state) => best(runs.none.rollout).cpuUs / best(runs[state].rollout).cpuUs;
  const controlRatio = (state) => best(runs[state].control).rps / best(runs.none.control).rps;
  report.add(M.ratioOne, INPUT, ratio('one'), { digits: 2, target: ROLLOUTS_TARGETS.ratio });
  if (runs.two) report.add(M.ratioTwo, INPUT, ratio('two'), { digits: 2, target: ROLLOUTS_TARGETS.ratio });
  else report.notRun([M.ratioTwo], INPUT, 'the channel has one target only', RATIO_TARGETS);
  report.add(M.cpuRatioOne, INPUT, cpuRatio('one'), { digits: 2 });
  if (runs.two) report.add(M.cpuRatioTwo, INPUT, cpuRatio('two'), { digits: 2 });
  report.add(M.controlRatioOne, INPUT, controlRatio('one'), { digits: 2 });
  if (runs.two) report.add(M.controlRatioTwo, INPUT, controlRatio('two'), { digits: 2 });
}

/** The machine's CPU time in ticks, all of it and what the hypervisor took (the `steal` of /proc/stat). */
function machineCpu() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { total: f.slice(0, 8).reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
}

/**
 * The clusters stored (the fleet API: a fleet:read token) and the new ones left out at
 * --fleet-max-clusters so far (/metrics), after the polls of the last run are flushed; n/a when the
 * server records no polls.
 */
async function fleetCounts(port, token) {
  await new Promise((r) => setTimeout(r, 6000)); // a flush interval
  const headers = { authorization: `Bearer ${token}` };
  const res = await get(port, '/api/v1/fleet?limit=1', { headers, timeoutMs: 60_000 });
  const metrics = (await get(port, '/metrics')).body.toString();
  return {
    stored: res.status === 200 ? JSON.parse(res.body.toString()).clusters : `n/a (${res.status})`,
    overCap: /^cincy_fleet_clusters_over_cap_total (\S+)$/m.exec(metrics)?.[1] ?? 'n/a',
  };
}

const stateName = (state) => ({ none: 'no rollout', one: 'one rollout', two: 'two rollouts' })[state];
const graphPath = (channel) => `/graph?channel=${encodeURIComponent(channel)}&arch=amd64`;

/**
 * The largest public channel by amd64 nodes, the second largest (the control), and the two releases of
 * the largest with the most edges into them (conditional ones included; the newer first on a tie), each
 * with its sources.
 */
async function choose(port) {
  const catalog = JSON.parse((await get(port, '/api/v1/catalog')).body.toString());
  const agent = keepAliveAgent();
  const graphs = [];
  try {
    for (const c of catalog.channels.filter((c) => (c.releases.amd64 ?? 0) > 0)) {
      const res = await get(port, graphPath(c.name), { headers: JSON_ACCEPT, agent });
      if (res.status !== 200) throw new Error(`GET ${graphPath(c.name)} → ${res.status}`);
      graphs.push({ name: c.name, graph: JSON.parse(res.body.toString()) });
    }
  } finally {
    agent.destroy();
  }
  graphs.sort((a, b) => b.graph.nodes.length - a.graph.nodes.length || (a.name < b.name ? -1 : 1));
  if (graphs.length < 2) throw new Error('the real set serves fewer than two channels with amd64 releases');
  const [{ name: channel, graph }, { name: control }] = graphs;
  const sources = new Map(graph.nodes.map((n) => [n.version, new Set()]));
  for (const [f, t] of graph.edges) sources.get(graph.nodes[t].version).add(graph.nodes[f].version);
  for (const group of graph.conditionalEdges) for (const e of group.edges) sources.get(e.to).add(e.from);
  const targets = [...sources]
    .map(([version, from]) => ({ version, sources: [...from], into: intoTarget(graph, version) }))
    .filter((t) => t.into > 0)
    .sort((a, b) => b.into - a.into || compareVersions(b.version, a.version))
    .slice(0, 2);
  if (!targets.length) throw new Error(`${channel} has no edges`);
  return { channel, control, nodes: graph.nodes.length, targets };
}

/** Edges (unconditional and conditional) into `version` in a served graph document. */
function intoTarget(graph, version) {
  let n = 0;
  for (const [, t] of graph.edges) if (graph.nodes[t].version === version) n++;
  for (const group of graph.conditionalEdges) for (const e of group.edges) if (e.to === version) n++;
  return n;
}

/** Semver order, enough for release versions: the numbers, then a pre-release before its release. */
function compareVersions(a, b) {
  const [coreA, preA] = a.split(/-(.*)/s);
  const [coreB, preB] = b.split(/-(.*)/s);
  const na = coreA.split('.').map(Number);
  const nb = coreB.split('.').map(Number);
  for (let i = 0; i < Math.max(na.length, nb.length); i++)
    if ((na[i] ?? 0) !== (nb[i] ?? 0)) return (na[i] ?? 0) - (nb[i] ?? 0);
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA < preB ? -1 : 1;
}

/** POST /api/v1/rollouts: `to` in `channel`, started half its window ago, canaries omitted. */
async function declare(port, token, channel, to) {
  const body = { channel, to, start: new Date(Date.now() - STARTED_AGO_MS).toISOString(), duration: DURATION };
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/rollouts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201)
    throw new Error(`POST /api/v1/rollouts ${JSON.stringify(body)} → ${res.status}: ${text.slice(0, 300)}`);
  const doc = JSON.parse(text);
  return { id: doc.id, start: doc.start, startMs: Date.parse(doc.start), durationMs: DURATION_MS };
}

/** graph/rollouts.ts placeOf: where the id's turn falls in a rollout to `to`, in [0, 1). */
function placeOf(id, to) {
  const digest = createHash('sha256').update(to).update('\n').update(id).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/**
 * Reads the graph of CHECK_IDS fresh ids until the rollouts in `active` are served (the rebuild after a
 * declaration runs in the background), then checks every id: each target's edges are all there when its
 * rollout offers them to the id (or it has none), and none of them otherwise. Throws, saying what was
 * served, unless that holds and every active rollout offered its edges to some ids and withheld them
 * from others.
 */
async function verifyServed(port, channel, targets, active) {
  const until = Date.now() + VISIBLE_WITHIN_MS;
  for (;;) {
    try {
      return await verify(port, channel, targets, active);
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function verify(port, channel, targets, active) {
  const agent = keepAliveAgent();
  const ids = [];
  const wrong = [];
  const offered = new Map(active.map((t) => [t.version, 0]));
  try {
    for (let i = 0; i < CHECK_IDS; i++) {
      const id = randomUUID();
      const path = `${graphPath(channel)}&id=${id}&version=${targets[0].sources[0]}`;
      const asked = Date.now();
      const res = await get(port, path, { headers: JSON_ACCEPT, agent });
      if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${res.body.toString().slice(0, 200)}`);
      const graph = JSON.parse(res.body.toString());
      const turns = [];
      for (const t of targets) {
        const into = intoTarget(graph, t.version);
        if (!t.rollout) {
          if (into !== t.into) wrong.push(`${id}: ${into} of the ${t.into} edges into ${t.version} without a rollout`);
          continue;
        }
        const at = t.rollout.startMs + Math.floor(placeOf(id, t.version) * t.rollout.durationMs);
        // A turn within a second of the request may fall either side of the server's clock.
        if (Math.abs(at - asked) < 1000) continue;
        const expected = asked >= at ? t.into : 0;
        if (into !== expected)
          wrong.push(
            `${id}: ${into} edges into ${t.version}, expected ${expected} (its turn ${new Date(at).toISOString()})`,
          );
        if (expected) offered.set(t.version, offered.get(t.version) + 1);
        turns.push(expected ? 1 : 0);
      }
      ids.push({ id, turns: turns.join('') });
    }
  } finally {
    agent.destroy();
  }
  if (wrong.length)
    throw new Error(
      `the rollouts ${active.map((t) => `${t.rollout.id} (${t.version})`).join(', ') || '(none)'} are not served as declared: ` +
        `${wrong.length} of ${CHECK_IDS} ids wrong, e.g. ${wrong.slice(0, 3).join('; ')}`,
    );
  for (const t of active) {
    const n = offered.get(t.version);
    if (n === 0 || n === CHECK_IDS)
      throw new Error(
        `rollout ${t.rollout.id} of ${t.version}: ${n} of ${CHECK_IDS} ids offered its edges; expected some and not all`,
      );
  }
  const summary = active.length
    ? active.map((t) => `${t.version}: ${offered.get(t.version)}`).join(', ') + ' (each as its hash places it)'
    : `all ${CHECK_IDS} got every edge into ${targets.map((t) => t.version).join(' and ')}`;
  return { ids, summary };
}

/** One gzip request per variant seen, so the runs serve compressed bytes made beforehand. */
async function warmVariants(port, channel, ids) {
  const seen = new Set();
  const agent = keepAliveAgent();
  try {
    for (const { id, turns } of ids) {
      if (seen.has(turns)) continue;
      seen.add(turns);
      const res = await get(port, `${graphPath(channel)}&id=${id}`, { headers: GZIP_ACCEPT, agent });
      if (res.status !== 200 || res.headers['content-encoding'] !== 'gzip')
        throw new Error(`gzip GET of ${channel} for ${id} → ${res.status}, ${res.headers['content-encoding']}`);
    }
  } finally {
    agent.destroy();
  }
}

/**
 * Each request a cluster never seen: a random version-4 UUID from the thread's own generator (seeded by
 * the run's first argument and the thread), at a random source of the targets (ROLLOUT_VERSIONS). A
 * second argument above 0 takes the ids from a pool of that many instead (the third telling pools apart),
 * each at a version of its own: at random, or in turn from the fourth argument when it is not negative.
 */
function writeLuaScript(workDir) {
  const file = join(workDir, 'rollout-polls.lua');
  writeFileSync(
    file,
    `local versions = {}
for v in string.gmatch(os.getenv("ROLLOUT_VERSIONS"), "[^,]+") do versions[#versions + 1] = v end
local threads = 0
function setup(thread)
  thread:set("thread_index", threads)
  threads = threads + 1
end
local pool, prefix, from = 0, 0, -1
function init(args)
  math.randomseed(tonumber(args[1] or "0") * 7 + thread_index)
  for _ = 1, 10 do math.random() end
  pool = tonumber(args[2] or "0")
  prefix = tonumber(args[3] or "0")
  from = tonumber(args[4] or "-1")
end
local r = math.random
local n = 0
function request()
  local id, version
  if pool > 0 then
    local i
    if from >= 0 then
      i = (from + thread_index + 2 * n) % pool
      n = n + 1
    else
      i = r(0, pool - 1)
    end
    -- A cluster of the pool polls at one version, as a cluster does between its updates.
    id = string.format("%08x-0000-4000-8000-%012x", prefix, i)
    version = versions[(i % #versions) + 1]
  else
    id = string.format("%04x%04x-%04x-4%03x-%x%03x-%04x%04x%04x",
      r(0, 65535), r(0, 65535), r(0, 65535), r(0, 4095), r(8, 11), r(0, 4095), r(0, 65535), r(0, 65535), r(0, 65535))
    version = versions[r(1, #versions)]
  end
  return wrk.format(nil, wrk.path .. "&id=" .. id .. "&version=" .. version)
end
`,
  );
  return file;
}
