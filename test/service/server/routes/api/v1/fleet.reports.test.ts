// POST /api/v1/fleet/reports over real HTTP: a cluster reports with a token bound to its id, and the
// fleet shows what it reported beside what its polls claim, and what became of its updates (completed
// with the duration its history gives, failing, silent, timed out). Who may report for whom, and what a
// report may hold, are refused by name; thousands of hostile reports leave the store as it was bounded.
/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are read as JSON, checked field by field */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { REPORTS_PER_MINUTE } from '../../../../../../src/app/fleet/reportIntake.js';
import { SILENT_AFTER_MS } from '../../../../../../src/app/fleet/reportedState.js';
import { REPORT_BODY_LIMIT } from '../../../../../../src/schemas/fleetReports.js';
import { createToken } from '../../../../../../src/cli/token.js';
import { BUNDLED_GRAPH_DATA } from '../../../../../../src/settings.js';
import { startServer, tempDir, type TestServer } from '../../../../../support/server.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const C = 'cccccccc-0000-4000-8000-00000000000c';
const iso = (ms: number): string => new Date(ms).toISOString();

interface Entry {
  state: 'Completed' | 'Partial';
  version: string;
  startedTime: string;
  completionTime: string | null;
}

/** A report as `cincy report` sends it: the objects as the API server returns them, extra fields and all. */
function body(id: string, history: Entry[], failing?: { reason: string; at: number }, operators: any[] = []): any {
  return {
    clusterID: id,
    clusterVersion: {
      apiVersion: 'config.openshift.io/v1',
      kind: 'ClusterVersion',
      metadata: { name: 'version', resourceVersion: '42', generation: 3 },
      spec: { clusterID: id, channel: 'stable-4.16', upstream: 'https://example/graph' },
      status: {
        desired: { version: history[0]!.version, image: `quay.example/ocp/release:${history[0]!.version}` },
        history: history.map((h) => ({ ...h, image: `quay.example/ocp/release:${h.version}`, verified: true })),
        conditions: [
          { type: 'Available', status: 'True', lastTransitionTime: iso(0) },
          failing
            ? {
                type: 'Failing',
                status: 'True',
                reason: failing.reason,
                message: 'it broke',
                lastTransitionTime: iso(failing.at),
              }
            : { type: 'Failing', status: 'False', lastTransitionTime: iso(0) },
          { type: 'Progressing', status: history[0]!.state === 'Partial' ? 'True' : 'False' },
        ],
        availableUpdates: null,
        observedGeneration: 3,
      },
    },
    clusterOperators: operators,
  };
}

describe('cluster reports', () => {
  let server: TestServer;
  let clock: ManualClock;
  let secretFile: string;
  const dir = tempDir();
  const tokens: Record<string, string> = {};

  const request = async (method: string, path: string, token: string | undefined, payload?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(token && { authorization: `Bearer ${token}` }),
        ...(payload !== undefined && { 'content-type': 'application/json' }),
      },
      body: payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const report = (id: string, payload: unknown, token = tokens[id]) =>
    request('POST', '/api/v1/fleet/reports', token, payload);
  const cluster = async (id: string) =>
    (await request('GET', `/api/v1/fleet/clusters?id=${id}`, tokens.read)).body.clusters[0];
  const updates = async () => (await request('GET', '/api/v1/fleet/updates', tokens.read)).body.updates;
  const poll = async (id: string, version: string) => {
    const res = await fetch(`${server.url}/graph?channel=stable-4.16&arch=amd64&id=${id}&version=${version}`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  };

  beforeAll(async () => {
    secretFile = join(dir.path, 'secret');
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
    tokens.read = await mint('fleet:read');
    for (const id of [A, B, C]) tokens[id] = await mint('fleet:report', id);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    dir.remove();
  });

  it('shows a completed update with the duration its history gives, beside what the polls claimed', async () => {
    const t = clock.now();
    await poll(A, '4.16.1');
    await server.recorder!.flush();
    clock.advance(10 * MIN);
    // The cluster polls with the target as soon as its update starts; polls say no more than that.
    await poll(A, '4.16.2');
    await server.recorder!.flush();
    const started = [
      { state: 'Partial', version: '4.16.2', startedTime: iso(t + 9 * MIN), completionTime: null },
      { state: 'Completed', version: '4.16.1', startedTime: iso(t - 99 * HOUR), completionTime: iso(t - 98 * HOUR) },
    ] as Entry[];
    const first = await report(A, body(A, started));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.update).toEqual({
      from: '4.16.1',
      to: '4.16.2',
      startedAt: iso(t + 9 * MIN),
      state: 'progressing',
    });
    clock.advance(90 * MIN);
    const done = [{ ...started[0]!, state: 'Completed', completionTime: iso(t + 96 * MIN) }, started[1]!] as Entry[];
    expect((await report(A, body(A, done))).body.update.state).toBe('completed');

    const a = await cluster(A);
    expect(a.version).toBe('4.16.2');
    expect(a.reported).toMatchObject({
      reportedAt: iso(clock.now()),
      channel: 'stable-4.16',
      version: '4.16.2',
      conditions: [
        { type: 'Available', status: 'True' },
        { type: 'Failing', status: 'False' },
        { type: 'Progressing', status: 'False' },
      ],
      operators: { total: 0, unavailable: [], degraded: [], progressing: [] },
      update: { from: '4.16.1', to: '4.16.2', state: 'completed', completedAt: iso(t + 96 * MIN) },
    });
    expect(await updates()).toEqual([
      {
        from: '4.16.1',
        to: '4.16.2',
        arch: 'amd64',
        started: 1, // seen by its polls and by its report: one cluster
        completed: 1,
        failing: 0,
        silent: 0,
        progressing: 0,
        medianSeconds: 87 * 60,
        p90Seconds: 87 * 60,
      },
    ]);
  });

  it('shows an update failing while the cluster says Failing, then silent, then timed out', async () => {
    const t = clock.now();
    await poll(B, '4.16.1');
    await server.recorder!.flush();
    const history = [
      { state: 'Partial', version: '4.16.3', startedTime: iso(t), completionTime: null },
      { state: 'Completed', version: '4.16.1', startedTime: iso(t - 9 * HOUR), completionTime: iso(t - 8 * HOUR) },
    ] as Entry[];
    const failing = await report(B, body(B, history, { reason: 'ClusterOperatorDegraded', at: t + 40 * MIN }));
    expect(failing.body.update).toMatchObject({ state: 'failing', reason: 'ClusterOperatorDegraded' });
    // It recovers, and then neither polls nor reports.
    expect((await report(B, body(B, history))).body.update.state).toBe('progressing');
    clock.advance(SILENT_AFTER_MS + MIN);
    expect((await cluster(B)).reported.update).toMatchObject({ state: 'silent' });
    // A cluster that still reports but never completes is failing once three hours have passed.
    await report(C, body(C, [{ ...history[0]!, startedTime: iso(clock.now()) }, history[1]!]));
    clock.advance(3 * HOUR + MIN);
    await report(C, body(C, [{ ...history[0]!, startedTime: iso(clock.now() - 3 * HOUR - MIN) }, history[1]!]));
    const edge = (await updates()).find((u: any) => u.to === '4.16.3' && u.arch === 'amd64');
    // B polls on amd64; C never polled, so its arch is unknown: two rows.
    expect(edge).toMatchObject({ arch: 'amd64', started: 1, silent: 1 });
    const unknown = (await updates()).find((u: any) => u.to === '4.16.3' && u.arch === '(unknown)');
    expect(unknown).toMatchObject({ started: 1, failing: 1 });
    expect((await request('GET', '/api/v1/fleet', tokens.read)).body.reporting).toBe(3);
  });

  it('takes a report only with a token bound to that cluster', async () => {
    const history = [{ state: 'Completed', version: '4.16.1', startedTime: iso(0), completionTime: iso(1) }] as Entry[];
    expect((await report(A, body(A, history), '')).status).toBe(401);
    const other = await report(A, body(A, history), tokens[B]);
    expect(other).toEqual({
      status: 403,
      body: { kind: 'forbidden', value: `token of 'cluster:${B}' reports for cluster ${B}, not ${A}` },
    });
    expect((await report(A, body(A, history), tokens.read)).status).toBe(403);
    const unbound = await createToken(
      { adminJwtSecretFile: secretFile, scope: 'fleet:read risks:write', ttl: '1h', subject: 's' },
      new Date(clock.now()),
    );
    expect((await report(A, body(A, history), unbound)).body.value).toMatch(/lacks scope fleet:report/);
    // A report token reads nothing: not the fleet, not the audit log, not internal channels.
    for (const path of ['/api/v1/fleet', '/api/v1/audit', '/api/v1/internal-channels'])
      expect((await request('GET', path, tokens[A])).status, path).toBe(403);
    // A token naming a cluster may carry no other scope, however it was made; a report token reads nothing, bound or not.
    const key = new TextEncoder().encode(readFileSync(secretFile, 'utf8').trim());
    /** A token signed with the server's secret as any issuer of tokens could make it, past what `token create` allows. */
    const handMade = (claims: Record<string, string>): Promise<string> => {
      const now = Math.floor(clock.now() / 1000);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('x')
        .setIssuer('cincy')
        .setAudience('cincy-admin')
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(key);
    };
    const bound = await handMade({ scope: 'fleet:report fleet:read', cluster_id: A });
    const mixed = await request('GET', '/api/v1/fleet', bound);
    expect(mixed).toEqual({
      status: 401,
      body: {
        kind: 'unauthorized',
        value: 'invalid token: claim cluster_id is only for a token whose one scope is fleet:report',
      },
    });
    const unboundReport = await handMade({ scope: 'fleet:report' });
    expect((await request('GET', '/api/v1/audit', unboundReport)).status).toBe(403);
    const reportAndRead = await handMade({ scope: 'fleet:read fleet:report' });
    expect((await request('GET', '/api/v1/fleet', reportAndRead)).status).toBe(403);
    expect((await report(A, body(A, history), unboundReport)).body.value).toMatch(/is bound to no cluster/);
    const mismatch = body(A, history);
    mismatch.clusterVersion.spec.clusterID = B;
    expect((await report(A, mismatch)).body).toEqual({
      kind: 'invalid_request',
      value: 'body/clusterVersion/spec/clusterID: is not body/clusterID',
    });
  });

  it('refuses a malformed report by the field, and an oversized one before reading it', async () => {
    const ok = [{ state: 'Completed', version: '4.16.1', startedTime: iso(0), completionTime: iso(1) }] as Entry[];
    const cases: Array<[any, RegExp]> = [
      [{ ...body(A, ok), extra: 1 }, /additional properties: 'extra'/],
      [body(A, [ok[0]!, { ...ok[0]!, version: '4'.repeat(65) }]), /history\/1\/version/],
      [body(A, [{ ...ok[0]!, startedTime: 'yesterday' }]), /history\/0\/startedTime/],
      [body(A, [{ ...ok[0]!, state: 'Done' as any }]), /history\/0\/state/],
      [
        { ...body(A, ok), clusterOperators: Array.from({ length: 513 }, () => ({ metadata: { name: 'x' } })) },
        /clusterOperators/,
      ],
      [{ ...body(A, ok), clusterID: 'not-a-uuid' }, /clusterID/],
    ];
    for (const [payload, field] of cases) {
      const r = await report(A, payload);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.value).toMatch(field);
    }
    const huge = { ...body(A, ok), padding: 'x'.repeat(3 * 1024 * 1024) };
    expect((await report(A, huge)).status).toBe(413);
  });

  it('takes twelve reports a minute of a cluster, and refuses more from their headers', async () => {
    clock.advance(60_000);
    const ok = [{ state: 'Completed', version: '4.16.1', startedTime: iso(0), completionTime: iso(1) }] as Entry[];
    for (let i = 0; i < REPORTS_PER_MINUTE; i++) expect((await report(B, body(B, ok))).status).toBe(200);
    const res = await fetch(`${server.url}/api/v1/fleet/reports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens[B]}`, 'content-type': 'application/json' },
      body: JSON.stringify(body(B, ok)),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await res.json()) as any).value).toBe(
      `more than ${REPORTS_PER_MINUTE} writes in a minute by 'cluster ${B}'`,
    );
    // Another cluster has a limit of its own.
    expect((await report(A, body(A, ok))).status).toBe(200);
    clock.advance(60_000);
    expect((await report(B, body(B, ok))).status).toBe(200);
  });

  it('keeps the store bounded under thousands of hostile reports of one cluster', async () => {
    const size = (): number => statSync(join(dir.path, 'store.db')).size + walSize();
    const walSize = (): number => {
      try {
        return statSync(join(dir.path, 'store.db-wal')).size;
      } catch {
        return 0;
      }
    };
    const junk = (n: number) => {
      const history = Array.from({ length: 256 }, (_, i) => ({
        state: i % 3 ? 'Completed' : 'Partial',
        version: `4.${n % 97}.${i}`,
        startedTime: iso(clock.now() - i * HOUR - n),
        completionTime: iso(clock.now() - i * HOUR - n + MIN),
      })) as Entry[];
      // Every 50th as large as a report may be; the rest smaller, so the thousand stay quick.
      const operators = Array.from({ length: n % 50 === 0 ? 400 : 40 }, (_, i) => ({
        metadata: { name: `${'o'.repeat(240)}-${n}-${i}` },
        status: {
          conditions: [{ type: 'Degraded', status: 'True', reason: 'r'.repeat(1024), message: 'm'.repeat(900) }],
        },
      }));
      return body(C, history, { reason: 'R'.repeat(1024), at: clock.now() }, operators);
    };
    const first = JSON.stringify(junk(0));
    expect(first.length).toBeLessThan(REPORT_BODY_LIMIT);
    // Five seconds apart: the twelve a minute a cluster may send.
    const send = async (n: number) => {
      clock.advance(5_000);
      const r = await report(C, junk(n));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    };
    for (let n = 0; n < 100; n++) await send(n);
    const before = size();
    for (let n = 100; n < 1100; n++) await send(n);
    const rows = server.store.read(async (tx) => [
      await tx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM fleet_reports'),
      await tx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM fleet_outcomes WHERE id = ?', [C]),
      await tx.sql.get<{ n: number }>('SELECT MAX(LENGTH(summary)) AS n FROM fleet_reports'),
    ]);
    const [reports, outcomes, longest] = await rows;
    expect(Number(reports!.n)).toBe(3);
    expect(Number(outcomes!.n)).toBeLessThanOrEqual(20);
    // Three lists of 50 names of at most 253 characters, and six conditions with their cut texts.
    expect(Number(longest!.n)).toBeLessThan(45_000);
    // A thousand reports of up to 1 MB moved the store by less than a megabyte.
    console.log(`store ${before} → ${size()} bytes over 1,000 reports of up to ${first.length} bytes`);
    expect(size() - before).toBeLessThan(1024 * 1024);
  }, 240_000);

  it('forgets the reports of clusters that stopped reporting, with their updates', async () => {
    const count = () =>
      server.store.read(async (tx) => [
        await tx.fleetReports.count(),
        Number((await tx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM fleet_outcomes'))!.n),
      ]);
    expect((await count())[0]).toBe(3);
    const times = await server.store.read(async (tx) =>
      [...(await tx.fleetReports.reportsOf([A, B, C])).values()].map((r) => r.reportedAt),
    );
    // Those that last reported before the newest report are forgotten; the newest stays.
    const newest = Math.max(...times);
    const older = times.filter((t) => t < newest).length;
    expect(older).toBeGreaterThan(0);
    expect(await server.store.write((tx) => tx.fleetReports.prune(newest))).toBe(older);
    expect((await count())[0]).toBe(3 - older);
    await server.store.write((tx) => tx.fleetReports.prune(clock.now() + 1));
    expect(await count()).toEqual([0, 0]);
  });
});
