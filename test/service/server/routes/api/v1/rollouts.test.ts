// /api/v1/rollouts over real HTTP, and the graph each cluster is served while a rollout runs: the edges
// into the target reach each cluster at its turn (canaries first, a request without an id at the end),
// stay once offered, and come back as the plain view after the window; a halt serves them to everyone
// conditional on PhasedRolloutHalted, resume takes the risk away, cancel withdraws them. The monitor halts
// a rollout whose clusters report failures. Every write is audited, in graph history, and validated by name.
/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are read as JSON, checked field by field */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { createToken } from '../../../../../../src/cli/token.js';
import { placeOf } from '../../../../../../src/graph/rollouts.js';
import { BUNDLED_GRAPH_DATA } from '../../../../../../src/settings.js';
import { updateReport } from '../../../../../support/clusterReports.js';
import { startServer, tempDir, type TestServer } from '../../../../../support/server.js';

const MIN = 60_000;
const CHANNEL = 'stable-4.16';
const TO = '4.16.22';
const iso = (ms: number): string => new Date(ms).toISOString();
const ids = Array.from({ length: 400 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

describe('phased rollouts', () => {
  let server: TestServer;
  let clock: ManualClock;
  const dir = tempDir();
  const tokens: Record<string, string> = {};

  const request = async (method: string, path: string, token: string | undefined, payload?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(payload !== undefined && { 'content-type': 'application/json' }),
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  /** What `id` is served: its unconditional edges into TO, the conditional ones with their risks, the ETag. */
  const served = async (id?: string, version = '4.15.10') => {
    const q = `channel=${CHANNEL}${id ? `&id=${id}&version=${version}` : ''}`;
    const res = await fetch(`${server.url}/graph?${q}`, { headers: { accept: 'application/json' } });
    const doc = (await res.json()) as any;
    const names = doc.nodes.map((n: any) => n.version);
    const edges = (doc.edges as Array<[number, number]>)
      .filter(([, t]) => names[t] === TO)
      .map(([f]) => names[f] as string);
    const conditional = (doc.conditionalEdges as any[]).flatMap((c) =>
      c.edges
        .filter((e: any) => e.to === TO)
        .map((e: any) => ({ from: e.from, risks: c.risks.map((r: any) => r.name) })),
    );
    return { edges, conditional, hasNode: names.includes(TO), etag: res.headers.get('etag'), doc };
  };
  const declare = async (body: Record<string, unknown>, token = tokens.write) => {
    const res = await request('POST', '/api/v1/rollouts', token, body);
    await server.service.caughtUp();
    return res;
  };
  const act = async (id: string, action: string, reason?: string) => {
    const res = await request('POST', `/api/v1/rollouts/${id}/${action}`, tokens.write, reason ? { reason } : {});
    await server.service.caughtUp();
    return res;
  };

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    clock = new ManualClock(Date.parse('2026-06-01T00:00:00Z'));
    server = await startServer({
      graphData: BUNDLED_GRAPH_DATA,
      db: join(dir.path, 'store.db'),
      auth: { secretFile, rateLimit: 100_000 },
      clock,
      fleet: { record: true, flushIntervalMs: 3_600_000 },
    });
    const mint = (scope: string, clusterId?: string) =>
      createToken({ adminJwtSecretFile: secretFile, scope, ttl: '30d', clusterId }, new Date(clock.now()));
    tokens.write = await mint('rollouts:write');
    tokens.risks = await mint('risks:write');
    tokens.audit = await mint('fleet:read');
    for (const id of ids.slice(0, 4)) tokens[id] = await mint('fleet:report', id);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    dir.remove();
  });

  let plain: Awaited<ReturnType<typeof served>>;
  let rolloutId = '';

  it('refuses a declaration by name, without the scope, and on a channel it does not serve', async () => {
    const good = { channel: CHANNEL, to: TO, start: iso(clock.now()), duration: 'PT1H' };
    expect((await declare(good, '')).status).toBe(401);
    expect((await declare(good, tokens.risks)).status).toBe(403);
    const bad = await declare({ ...good, to: 'four', from: '4.15.(', duration: 'an hour', start: 'soon' });
    expect(bad.status).toBe(400);
    for (const field of ['body.to', 'body.from', 'body.duration', 'body.start'])
      expect(bad.body.value).toContain(field);
    const off = await declare({ ...good, haltAfter: { failures: null, fraction: null } });
    expect(off.status).toBe(400);
    expect(off.body.value).toContain('body.haltAfter');
    const elsewhere = await declare({ ...good, channel: 'stable-9.99' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.value).toContain("no public channel 'stable-9.99'");
    expect((await declare({ ...good, extra: 1 })).status).toBe(400);
    expect((await declare({ ...good, canaries: Array(101).fill('x') })).status).toBe(400);
    expect((await request('GET', '/api/v1/rollouts', undefined)).body.rollouts).toEqual([]);
  });

  it('offers the edges cluster by cluster over the window: canaries at the start, no id at the end', async () => {
    plain = await served();
    expect(plain.edges.length).toBeGreaterThan(0);
    const canary = 'canary-cluster';
    const created = await declare({
      channel: CHANNEL,
      to: TO,
      from: '^4[.]15[.]',
      start: iso(clock.now()),
      duration: 'PT1H',
      canaries: [canary],
      reason: 'the usual 4.16.22 rollout',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    rolloutId = created.body.id;
    expect(created.body).toMatchObject({
      channel: CHANNEL,
      to: TO,
      from: '^4[.]15[.]',
      phase: 'rolling',
      state: 'active',
      share: 0,
      end: iso(clock.now() + 60 * MIN),
      haltAfter: { failures: 2, fraction: 0.05 },
      url: expect.stringMatching(new RegExp(`/api/v1/rollouts/${rolloutId}$`)),
      createdBy: expect.any(String),
    });
    const fromMinor = plain.edges.filter((f) => f.startsWith('4.15.'));
    const fromPatch = plain.edges.filter((f) => !f.startsWith('4.15.'));
    expect(fromMinor.length).toBeGreaterThan(0);
    // Not yet offered: the node stays (no VersionNotFound), the governed edges go, the others stay.
    const none = await served();
    expect(none.hasNode).toBe(true);
    expect(none.edges).toEqual(fromPatch);
    expect((await served(canary)).edges).toEqual(plain.edges);
    expect((await served(ids[0])).edges).toEqual(fromPatch);

    // Half way: each cluster by its place, and about half of them.
    clock.advance(30 * MIN);
    let offered = 0;
    const half = new Map<string, boolean>();
    for (const id of ids) {
      const got = (await served(id)).edges.length === plain.edges.length;
      expect(got, id).toBe(placeOf(id, TO) <= 0.5);
      half.set(id, got);
      if (got) offered += 1;
    }
    expect(offered / ids.length).toBeGreaterThan(0.4);
    expect(offered / ids.length).toBeLessThan(0.6);
    expect((await served()).edges).toEqual(fromPatch);
    const doc = (await request('GET', `/api/v1/rollouts/${rolloutId}`, undefined)).body;
    expect(doc.share).toBeCloseTo(0.5, 5);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain(`cincy_phased_update_rollout{channel="${CHANNEL}",from="^4[.]15[.]",to="${TO}"} 0.5`);

    // Later: no cluster loses what it was offered.
    clock.advance(20 * MIN);
    for (const id of ids.filter((i) => half.get(i)))
      expect((await served(id)).edges.length, id).toBe(plain.edges.length);

    // After the window: everyone, and the bytes are the plain view's.
    clock.advance(11 * MIN);
    const after = await served();
    expect(after.edges).toEqual(plain.edges);
    expect(after.etag).toBe(plain.etag);
    expect((await request('GET', `/api/v1/rollouts/${rolloutId}`, undefined)).body.phase).toBe('watching');
  });

  it('halts: every cluster is served the edges conditional on PhasedRolloutHalted; resume and cancel', async () => {
    const halted = await act(rolloutId, 'halt', 'a report from support');
    expect(halted.status, JSON.stringify(halted.body)).toBe(200);
    expect(halted.body).toMatchObject({ state: 'halted', phase: 'halted', reason: 'a report from support' });
    for (const id of [undefined, ids[1], 'canary-cluster']) {
      const s = await served(id);
      expect(s.edges).toEqual(plain.edges.filter((f) => !f.startsWith('4.15.')));
      expect(s.conditional.filter((c) => c.risks.includes('PhasedRolloutHalted')).map((c) => c.from)).toEqual(
        plain.edges.filter((f) => f.startsWith('4.15.')),
      );
    }
    const risk = (await served()).doc.conditionalEdges.find((c: any) => c.risks[0].name === 'PhasedRolloutHalted')
      .risks[0];
    expect(risk).toEqual({
      url: expect.stringContaining(`/api/v1/rollouts/${rolloutId}`),
      name: 'PhasedRolloutHalted',
      message: expect.stringContaining(`was halted: an administrator halted it: a report from support`),
      matchingRules: [{ type: 'Always' }],
    });
    expect((await act(rolloutId, 'halt')).status).toBe(409);

    expect((await act(rolloutId, 'resume', 'false alarm')).body.state).toBe('active');
    expect((await served()).edges).toEqual(plain.edges);

    expect((await act(rolloutId, 'cancel', 'for good')).body.state).toBe('cancelled');
    const cancelled = await served(ids[2]);
    expect(cancelled.edges).toEqual(plain.edges.filter((f) => !f.startsWith('4.15.')));
    expect(cancelled.conditional).toEqual([]);
    expect((await act(rolloutId, 'resume')).status).toBe(409);

    const changes = (
      await request(
        'GET',
        `/api/v1/changes?channel=${CHANNEL}&kind=rollout-declared,rollout-halted,rollout-resumed,rollout-cancelled`,
        undefined,
      )
    ).body.changes;
    expect(changes.map((c: any) => c.kind)).toEqual([
      'rollout-cancelled',
      'rollout-resumed',
      'rollout-halted',
      'rollout-declared',
    ]);
    expect(changes.every((c: any) => c.detail.rollout === rolloutId && c.to === TO)).toBe(true);
    const audit = (await request('GET', '/api/v1/audit?limit=10', tokens.audit)).body.entries as any[];
    expect(audit.filter((e) => e.target === rolloutId).map((e) => [e.action, e.reason])).toEqual([
      ['rollout.cancel', 'for good'],
      ['rollout.resume', 'false alarm'],
      ['rollout.halt', 'a report from support'],
      ['rollout.declare', 'the usual 4.16.22 rollout'],
    ]);
  });

  it('halts itself when the clusters that took it report failures, and the risk says how many', async () => {
    const t = clock.now();
    const created = await declare({
      channel: CHANNEL,
      to: TO,
      start: iso(t),
      duration: 'PT0S',
      haltAfter: { failures: 2, fraction: null },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect((await served()).edges).toEqual(plain.edges);
    const [a, b, c] = ids;
    for (const cluster of [a!, b!, c!]) {
      const res = await fetch(`${server.url}/graph?channel=${CHANNEL}&id=${cluster}&version=4.16.20`);
      await res.arrayBuffer();
    }
    await server.recorder!.flush();
    const report = (cluster: string, failing: boolean) =>
      request(
        'POST',
        '/api/v1/fleet/reports',
        tokens[cluster],
        updateReport({
          ...{ id: cluster, channel: CHANNEL, from: '4.16.20', to: TO, startedAt: t + MIN, completedAt: null },
          ...(failing && { failingSince: t + 2 * MIN }),
        }),
      );
    clock.advance(3 * MIN);
    expect((await report(a!, true)).status).toBe(200);
    expect((await report(b!, false)).status).toBe(200);
    await server.rollouts.check();
    await server.service.caughtUp();
    expect((await request('GET', `/api/v1/rollouts/${id}`, undefined)).body).toMatchObject({
      state: 'active',
      counts: { took: 2, failing: 1, progressing: 1, completed: 0, silent: 0 },
    });
    expect((await report(c!, true)).status).toBe(200);
    await server.rollouts.check();
    await server.service.caughtUp();
    const doc = (await request('GET', `/api/v1/rollouts/${id}`, undefined)).body;
    expect(doc).toMatchObject({ state: 'halted', createdBy: expect.any(String), haltCounts: { took: 3, failing: 2 } });
    const s = await served();
    expect(s.edges).toEqual([]);
    const risk = s.doc.conditionalEdges.find((g: any) => g.risks.some((r: any) => r.name === 'PhasedRolloutHalted'));
    expect(risk.risks.at(-1).message).toContain('2 of the 3 clusters that took it failed (2 failing, 0 silent)');
    const changes = (await request('GET', `/api/v1/changes?kind=rollout-halted`, undefined)).body.changes;
    expect(changes[0]).toMatchObject({
      kind: 'rollout-halted',
      actor: 'cincy',
      risk: 'PhasedRolloutHalted',
      detail: { rollout: id },
    });
    // A report of the same kind does not halt it twice.
    await server.rollouts.check();
    expect(server.rollouts.stats.halts).toBe(1);

    // Resumed, it counts the failures from then on: those it was resumed over do not halt it again.
    clock.advance(MIN);
    expect((await act(id, 'resume', 'known, fixed by an operator update')).body.state).toBe('active');
    await server.rollouts.check();
    await server.service.caughtUp();
    expect((await request('GET', `/api/v1/rollouts/${id}`, undefined)).body).toMatchObject({
      state: 'active',
      counts: { took: 0, failing: 0 },
    });
    expect((await served()).edges).toEqual(plain.edges);
    // One cluster retrying the target from two sources is one cluster, not two failures.
    const retried = updateReport({
      ...{ id: c!, channel: CHANNEL, from: '4.16.19', to: TO, startedAt: clock.now(), completedAt: null },
      failingSince: clock.now(),
    }) as any;
    const history = retried.clusterVersion.status.history;
    history.splice(1, 0, {
      ...history[0],
      version: '4.16.19',
      state: 'Completed',
      completionTime: history[1].completionTime,
    });
    history.push({ ...history[0], startedTime: iso(clock.now() - 200 * MIN), version: TO, state: 'Partial' });
    history.push({ ...history[1], version: '4.16.18', startedTime: iso(clock.now() - 300 * MIN) });
    clock.advance(MIN);
    expect((await request('POST', '/api/v1/fleet/reports', tokens[c!], retried)).status).toBe(200);
    await server.rollouts.check();
    const counted = (await request('GET', `/api/v1/rollouts/${id}`, undefined)).body;
    expect(counted).toMatchObject({ state: 'active', counts: { took: 1, failing: 1 } });
  });

  it('prices what clients send: garbage ids by the thousand and garbage declarations leave memory, store and answers bounded', async () => {
    // Three rollouts phasing at once on the channel: at most 2^3 variants of its view, whatever the ids.
    clock.advance(24 * 3600_000);
    for (const to of ['4.16.21', '4.16.20', '4.16.19']) {
      const r = await declare({ channel: CHANNEL, to, start: iso(clock.now() - 30 * MIN), duration: 'PT1H' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const tags = new Set<string>();
    const variants = async () =>
      Number(/^cincy_graph_rollout_variants (\d+)$/m.exec(await (await fetch(`${server.url}/metrics`)).text())![1]);
    const started = performance.now();
    for (let i = 0; i < 3000; i++) {
      const id = `${i}-${'x'.repeat(i % 2000)}-\u00e9`;
      const res = await fetch(`${server.url}/graph?channel=${CHANNEL}&id=${encodeURIComponent(id)}&version=garbage`, {
        method: 'HEAD',
      });
      expect(res.status).toBe(200);
      tags.add(res.headers.get('etag')!);
    }
    const perRequestMs = (performance.now() - started) / 3000;
    // `+` is a space, as fastify decodes it, whichever path answers.
    const head = async (q: string) =>
      (await fetch(`${server.url}/graph?channel=${CHANNEL}&${q}`, { method: 'HEAD' })).headers.get('etag');
    expect(await head('id=a+cluster')).toBe(await head('id=a%20cluster'));
    const held = await variants();
    console.log(
      `3,000 garbage ids: ${tags.size} distinct answers, ${held} variants held, ${perRequestMs.toFixed(2)} ms a request`,
    );
    expect(tags.size).toBeLessThanOrEqual(8);
    expect(held).toBeLessThanOrEqual(8);
    expect(tags.size).toBeGreaterThan(1);

    // Garbage declarations: each refused by name, nothing stored.
    const before = (await request('GET', '/api/v1/rollouts?limit=100', undefined)).body.rollouts.length;
    const junk = [
      { channel: CHANNEL, to: TO, start: 'x'.repeat(65), duration: 'PT1H' },
      { channel: CHANNEL, to: TO, start: iso(clock.now()), duration: 'P9999D' },
      { channel: CHANNEL, to: TO, start: iso(clock.now() + 2 * 365 * 86400_000), duration: 'PT1H' },
      { channel: CHANNEL, to: TO, start: iso(clock.now()), duration: 'PT1H', from: '('.repeat(500) },
      { channel: CHANNEL, to: TO, start: iso(clock.now()), duration: 'PT1H', haltAfter: { failures: 0 } },
      { channel: CHANNEL, to: TO, start: iso(clock.now()), duration: 'PT1H', haltAfter: { fraction: 2 } },
      { channel: CHANNEL, to: 'x'.repeat(300), start: iso(clock.now()), duration: 'PT1H' },
      { channel: '../etc', to: TO, start: iso(clock.now()), duration: 'PT1H' },
      { channel: CHANNEL, to: TO, start: iso(clock.now()), duration: 'PT1H', url: 'javascript:alert(1)' },
      { channel: CHANNEL, to: TO, start: iso(clock.now()), duration: 'PT1H', canaries: [''.padEnd(200, 'c')] },
      { channel: CHANNEL, to: TO, start: '2026-06-01T00:00', duration: 'PT1H' },
      { channel: CHANNEL, to: TO, start: '6/1/2026', duration: 'PT1H' },
    ];
    for (let i = 0; i < 1000; i++) {
      const res = await request('POST', '/api/v1/rollouts', tokens.write, junk[i % junk.length]);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.value).toMatch(/body/);
    }
    expect((await request('GET', '/api/v1/rollouts?limit=100', undefined)).body.rollouts.length).toBe(before);
    // The fifth unfinished rollout of a channel is refused: its variants would double again.
    for (const to of ['4.16.17']) {
      const r = await declare({ channel: CHANNEL, to, start: iso(clock.now()), duration: 'PT1H' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const fifth = await declare({ channel: CHANNEL, to: '4.16.14', start: iso(clock.now()), duration: 'PT1H' });
    expect(fifth.status).toBe(409);
    expect(fifth.body.value).toContain('4 rollouts of stable-4.16 are unfinished');
  });
});
