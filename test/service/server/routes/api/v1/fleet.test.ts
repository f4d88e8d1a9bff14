// The fleet API against thousands of simulated clusters polling over real HTTP: every number it gives
// is checked against counts this test makes itself, from its own log of the polls it sent and from the
// graph views it read as a cluster reads them. A risk added through the admin API moves the exposure.
// What the poll recorder stores of those polls is in test/service/app/fleet/pollRecorder.http.test.ts.
/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are read as JSON, checked field by field */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { createToken } from '../../../../../../src/cli/token.js';
import { BUNDLED_GRAPH_DATA } from '../../../../../../src/settings.js';
import { UNSERVED } from '../../../../../../src/schemas/fleet.js';
import { startServer, tempDir, type TestServer } from '../../../../../support/server.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const CLUSTERS = 3000;
const CHANNELS = ['stable-4.16', 'fast-4.17', 'eus-4.16', 'stable-4.14', 'candidate-4.18'];
const ARCHES = ['amd64', 'arm64'];
const UNKNOWN_CHANNEL = 'stable-9.99';

interface View {
  versions: Set<string>;
  recommended: Map<string, string[]>;
  /** version → risk names on its conditional updates */
  risks: Map<string, Set<string>>;
}

interface Sim {
  id: string;
  channel: string;
  arch: string;
  version: string | undefined;
  lastPoll: number;
  moves: Array<{ from: string; to: string }>;
}

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}
const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
const uuid = (n: number): string => {
  const hex = n.toString(16).padStart(12, '0');
  return `5a1e${hex.slice(0, 4)}-0000-4000-8000-${hex}`;
};

describe('the fleet, from thousands of clusters polling over HTTP', () => {
  let server: TestServer;
  let clock: ManualClock;
  let fleetToken: string;
  let riskToken: string;
  const dir = tempDir();
  const views = new Map<string, View>();
  const sims: Sim[] = [];

  const get = async (path: string, token = fleetToken): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: await res.json() };
  };
  /** Every page of a list. */
  const all = async (path: string, field: string): Promise<any[]> => {
    const items: any[] = [];
    let cursor: string | undefined;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const { status, body } = await get(`${path}${sep}limit=37${cursor ? `&cursor=${cursor}` : ''}`);
      expect(status, JSON.stringify(body)).toBe(200);
      items.push(...body[field]);
      cursor = body.nextCursor;
    } while (cursor);
    return items;
  };
  const readViews = async (): Promise<void> => {
    views.clear();
    for (const channel of CHANNELS)
      for (const arch of ARCHES) {
        const doc = (await (
          await fetch(`${server.url}/graph?channel=${channel}&arch=${arch}`, {
            headers: { accept: 'application/json' },
          })
        ).json()) as {
          nodes: Array<{ version: string }>;
          edges: Array<[number, number]>;
          conditionalEdges: Array<{ edges: Array<{ from: string; to: string }>; risks: Array<{ name: string }> }>;
        };
        const view: View = { versions: new Set(), recommended: new Map(), risks: new Map() };
        for (const n of doc.nodes) view.versions.add(n.version);
        for (const [f, t] of doc.edges) {
          const from = doc.nodes[f]!.version;
          view.recommended.set(from, [...(view.recommended.get(from) ?? []), doc.nodes[t]!.version]);
        }
        for (const c of doc.conditionalEdges)
          for (const e of c.edges) {
            const set = view.risks.get(e.from) ?? new Set<string>();
            for (const r of c.risks) set.add(r.name);
            view.risks.set(e.from, set);
          }
        views.set(`${channel} ${arch}`, view);
      }
  };
  /** One poll, as the cluster-version-operator sends it. */
  const poll = async (query: string): Promise<void> => {
    const res = await fetch(`${server.url}/api/upgrades_info/v1/graph?${query}`, {
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  };
  const pollAs = async (s: Sim): Promise<void> => {
    const version = s.version === undefined ? '' : `&version=${s.version}`;
    await poll(`arch=${s.arch}&channel=${s.channel}&id=${s.id}${version}`);
    s.lastPoll = clock.now();
  };
  const inParallel = async <T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < items.length) await fn(items[next++]!);
      }),
    );
  };
  const view = (s: Sim): View | undefined => views.get(`${s.channel} ${s.arch}`);
  const stranded = (s: Sim): boolean =>
    s.channel === UNKNOWN_CHANNEL || (s.version !== undefined && !view(s)!.versions.has(s.version));
  /** The names the server records a cluster under: a channel or a version the graph lacks as one (pollNames.ts). */
  const recordedKey = (s: Sim): string => {
    const known = [...views.values()].some((v) => s.version !== undefined && v.versions.has(s.version));
    const version = s.version === undefined ? null : known ? s.version : UNSERVED;
    return `${CHANNELS.includes(s.channel) ? s.channel : UNSERVED} ${s.arch} ${version}`;
  };
  const exposedTo = (s: Sim, risk: string): boolean =>
    !stranded(s) && s.version !== undefined && (view(s)?.risks.get(s.version)?.has(risk) ?? false);

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    clock = new ManualClock(Date.parse('2026-06-01T00:00:00Z'));
    server = await startServer({
      graphData: BUNDLED_GRAPH_DATA,
      auth: { secretFile, rateLimit: 1000 },
      clock,
      // Written when the test says, not on a timer.
      fleet: { record: true, flushIntervalMs: 3_600_000 },
    });
    const token = (scope: string): Promise<string> =>
      createToken({ adminJwtSecretFile: secretFile, scope, ttl: '30d', subject: 'fleet-admin' }, new Date(clock.now()));
    fleetToken = await token('fleet:read');
    riskToken = await token('risks:write');
    await readViews();

    // The clusters: most on a version of their channel, some on one it lacks, some naming none, a few
    // on a channel that does not exist.
    const r = random(29);
    for (let i = 0; i < CLUSTERS; i++) {
      const unknown = r() < 0.04;
      const channel = unknown ? UNKNOWN_CHANNEL : pick(r, CHANNELS);
      const arch = pick(r, ARCHES);
      const roll = r();
      const inChannel = unknown ? [] : [...views.get(`${channel} ${arch}`)!.versions];
      const version =
        roll < 0.05 ? undefined : roll < 0.13 || inChannel.length === 0 ? `4.11.${i % 5}` : pick(r, inChannel);
      sims.push({ id: uuid(i), channel, arch, version, lastPoll: 0, moves: [] });
    }

    // t0: everyone polls, with polls that carry no id or a malformed one among them.
    await inParallel(sims, pollAs);
    for (let i = 0; i < 40; i++) await poll(`channel=stable-4.16&version=4.16.1${i % 2 ? '&id=' : ''}`);
    for (let i = 0; i < 25; i++) await poll(`channel=stable-4.16&id=not-a-uuid-${i}`);
    await poll(`channel=stable-4.16&id=${uuid(1)}&version=${'9'.repeat(80)}`);
    await server.recorder!.flush();

    // Three waves of updates, each along a recommended edge, 10, 25 and 55 minutes after t0. Half of
    // each wave polls again at its old version first, in the same batch as its update.
    const updaters = sims.filter(
      (s, i) => i % 3 === 0 && !stranded(s) && s.version && view(s)!.recommended.has(s.version),
    );
    for (const [wave, minutes] of [10, 15, 30].entries()) {
      clock.advance(minutes * MIN);
      const members = updaters.filter((_, i) => i % 3 === wave);
      const again = members.filter((_, i) => i % 2 === 0);
      await inParallel(again, pollAs);
      clock.advance(2 * MIN);
      await inParallel(members, async (s) => {
        const from = s.version!;
        const to = view(s)!.recommended.get(from)![0]!;
        s.moves.push({ from, to });
        s.version = to;
        await pollAs(s);
      });
      if (wave !== 1) await server.recorder!.flush(); // waves 1 and 2 share a batch
    }
    await server.recorder!.flush();

    // A day later, three clusters in four poll again; the rest fall silent.
    clock.advance(25 * HOUR);
    await inParallel(
      sims.filter((_, i) => i % 4 !== 0),
      pollAs,
    );
    await server.recorder!.flush();
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    dir.remove();
  });

  it('counts the clusters, the stale, the stranded and the behind as the polls and the graph say', async () => {
    const { status, body } = await get('/api/v1/fleet?limit=5');
    expect(status).toBe(200);
    const staleBefore = clock.now() - 24 * HOUR;
    const behind = sims.filter((s) => !stranded(s) && s.version !== undefined && view(s)!.recommended.has(s.version));
    expect(body).toMatchObject({
      clusters: CLUSTERS,
      stale: sims.filter((s) => s.lastPoll < staleBefore).length,
      stranded: sims.filter(stranded).length,
      behind: behind.length,
      versionUnknown: sims.filter((s) => s.version === undefined).length,
      // The test's own reads of the graph views are polls without an id too.
      polls: { noId: 40 + CHANNELS.length * ARCHES.length, malformed: 26, batchFull: 0, overCap: 0 },
      recording: true,
    });
    expect(body.stranded).toBeGreaterThan(100);
    expect(body.stale).toBeGreaterThan(500);

    // Every group, page after page, as the clusters' own log groups them.
    const groups = await all('/api/v1/fleet', 'groups');
    const expected = new Map<string, { clusters: number; stale: number; stranded: boolean }>();
    for (const s of sims) {
      const key = recordedKey(s);
      const g = expected.get(key) ?? { clusters: 0, stale: 0, stranded: stranded(s) };
      g.clusters += 1;
      if (s.lastPoll < staleBefore) g.stale += 1;
      expected.set(key, g);
    }
    expect(groups).toHaveLength(expected.size);
    for (const g of groups) {
      const e = expected.get(`${g.channel} ${g.arch} ${g.version}`);
      expect(e, `${g.channel} ${g.arch} ${g.version}`).toBeDefined();
      expect({ clusters: g.clusters, stale: g.stale, stranded: g.stranded !== undefined }).toEqual(e);
    }
    const channelTop = body.top.channels.find((t: { name: string }) => t.name === 'stable-4.16');
    expect(channelTop.clusters).toBe(sims.filter((s) => s.channel === 'stable-4.16').length);
  });

  it('lists the clusters by every filter, each with its record and the updates it is shown', async () => {
    const ids = (list: Array<{ id: string }>): string[] => list.map((c) => c.id).sort();
    const of = (f: (s: Sim) => boolean): string[] =>
      sims
        .filter(f)
        .map((s) => s.id)
        .sort();

    expect(ids(await all('/api/v1/fleet/clusters?stranded=true', 'clusters'))).toEqual(of(stranded));
    expect(ids(await all('/api/v1/fleet/clusters?stranded=false&channel=fast-4.17', 'clusters'))).toEqual(
      of((s) => !stranded(s) && s.channel === 'fast-4.17'),
    );
    expect(ids(await all('/api/v1/fleet/clusters?silentFor=24h&arch=arm64', 'clusters'))).toEqual(
      of((s) => s.lastPoll < clock.now() - 24 * HOUR && s.arch === 'arm64'),
    );
    const some = sims.find((s) => s.version && !stranded(s))!;
    expect(ids(await all(`/api/v1/fleet/clusters?version=${some.version}`, 'clusters'))).toEqual(
      of((s) => s.version === some.version),
    );
    const risk = [...views.values()].flatMap((v) => [...v.risks.values()].flatMap((set) => [...set]))[0]!;
    const exposed = of((s) => exposedTo(s, risk));
    expect(exposed.length).toBeGreaterThan(0);
    expect(ids(await all(`/api/v1/fleet/clusters?exposedTo=${risk}`, 'clusters'))).toEqual(exposed);

    // One cluster that updated: its record, its history and what it is shown now.
    const moved = sims.find((s) => s.moves.length > 0 && s.lastPoll === clock.now())!;
    const { body } = await get(`/api/v1/fleet/clusters?id=${moved.id.toUpperCase()}`);
    expect(body.clusters).toHaveLength(1);
    const c = body.clusters[0];
    expect(c).toMatchObject({ id: moved.id, channel: moved.channel, arch: moved.arch, version: moved.version });
    expect(c.lastSeen).toBe(new Date(moved.lastPoll).toISOString());
    expect(c.history.map((h: { from: string; to: string }) => [h.from, h.to])).toEqual(
      moved.moves.map((m) => [m.from, m.to]),
    );
    expect(c.recommended).toEqual(view(moved)!.recommended.get(moved.version!) ?? []);
    const shownRisks = new Set<string>(c.conditional.flatMap((u: { risks: string[] }) => u.risks));
    expect(shownRisks).toEqual(view(moved)!.risks.get(moved.version!) ?? new Set());
  });

  it('gives the updates clusters were seen to start, per edge: polls alone say no more than that', async () => {
    const updates = await all('/api/v1/fleet/updates', 'updates');
    const expected = new Map<string, Set<string>>();
    for (const s of sims)
      for (const m of s.moves) {
        const key = `${m.from} ${m.to} ${s.arch}`;
        expected.set(key, (expected.get(key) ?? new Set()).add(s.id));
      }
    expect(updates.length).toBe(expected.size);
    for (const u of updates)
      // No cluster reported: what became of each update is not known, and no duration is made up.
      expect(u).toEqual({
        from: u.from,
        to: u.to,
        arch: u.arch,
        started: expected.get(`${u.from} ${u.to} ${u.arch}`)!.size,
        completed: 0,
        failing: 0,
        silent: 0,
        progressing: 0,
      });
    expect(updates.reduce((n, u) => n + u.started, 0)).toBe(sims.reduce((n, s) => n + s.moves.length, 0));
  });

  it('moves the exposure as soon as a risk written through the admin API is served', async () => {
    const exposure = async (): Promise<Map<string, number>> =>
      new Map((await all('/api/v1/fleet/exposure', 'risks')).map((r) => [r.risk, r.clusters]));
    const expectedExposure = (only: (s: Sim) => boolean = () => true): Map<string, number> => {
      const counts = new Map<string, number>();
      for (const s of sims)
        if (only(s) && !stranded(s) && s.version !== undefined)
          for (const risk of view(s)?.risks.get(s.version) ?? []) counts.set(risk, (counts.get(risk) ?? 0) + 1);
      return counts;
    };
    expect(await exposure()).toEqual(expectedExposure());
    // One channel and arch: its clusters only, every group counted, the largest listed first.
    const one = await all('/api/v1/fleet/exposure?channel=stable-4.16&arch=amd64', 'risks');
    expect(new Map(one.map((r) => [r.risk, r.clusters]))).toEqual(
      expectedExposure((s) => s.channel === 'stable-4.16' && s.arch === 'amd64'),
    );
    for (const r of one) {
      expect(r.groups).toHaveLength(Math.min(r.groupCount, 50));
      expect(r.groups.every((g: Sim) => g.channel === 'stable-4.16' && g.arch === 'amd64')).toBe(true);
      const sizes = r.groups.map((g: { clusters: number }) => g.clusters);
      expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    }

    // The busiest version with a recommended update gets a risk on that update.
    const busiest = new Map<string, number>();
    for (const s of sims)
      if (!stranded(s) && s.version && view(s)!.recommended.has(s.version))
        busiest.set(s.version, (busiest.get(s.version) ?? 0) + 1);
    const [from] = [...busiest].sort((a, b) => b[1] - a[1])[0]!;
    const holder = sims.find((s) => s.version === from && !stranded(s) && view(s)!.recommended.has(from))!;
    const to = view(holder)!.recommended.get(from)![0]!;
    const res = await fetch(`${server.url}/api/v1/risks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${riskToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        to,
        // Blocked-edge patterns are matched against VERSION+ARCH, as the reference matches them.
        from: `^${from.replace(/\./g, '[.]')}[+]`,
        name: 'FleetTestRisk',
        url: 'https://risks.example/fleet',
        message: 'A risk declared while clusters poll.',
        matchingRules: [{ type: 'Always' }],
      }),
    });
    expect(res.status, await res.text()).toBe(201);
    await readViews();
    const after = await exposure();
    expect(after).toEqual(expectedExposure());
    expect(after.get('FleetTestRisk')).toBe(sims.filter((s) => exposedTo(s, 'FleetTestRisk')).length);
    expect(after.get('FleetTestRisk')).toBeGreaterThan(0);
  });

  it('refuses a token without fleet:read, and a bad parameter by its name', async () => {
    expect((await get('/api/v1/fleet', riskToken)).status).toBe(403);
    expect((await fetch(`${server.url}/api/v1/fleet/clusters`)).status).toBe(401);
    const bad = await get('/api/v1/fleet?staleAfter=soon');
    expect(bad.status).toBe(400);
    expect(bad.body.value).toMatch(/staleAfter/);
    const id = await get('/api/v1/fleet/clusters?id=nope');
    expect(id.status).toBe(400);
    expect(id.body.value).toMatch(/querystring\/id/);
    expect((await get('/api/v1/fleet/clusters?cursor=abc')).status).toBe(400);
  });
});
