// Graph history over HTTP: a ladder server on a SQLite file, changed through the admin API (a
// promotion, a risk added and withdrawn, a tombstone), then GET /api/v1/changes: each change with its
// cause and the token's subject as actor, filtered and paged, bad queries refused naming the field;
// a restart on the same file keeps the history and records nothing again; change sinks take each batch
// in its transaction, and one that fails rolls the batch back until the next graph records it; changes
// past the retention are forgotten.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { createToken } from '../../../../src/cli/token.js';
import type { Change } from '../../../../src/history/change.js';
import type { ChangeSink } from '../../../../src/store/changeSink.js';
import { ladder } from '../../../support/adminServer.js';
import { startServer, tempDir, type TestServer } from '../../../support/server.js';

interface StoredChange {
  id: number;
  kind: string;
  at: string;
  channel?: string;
  arch?: string;
  from?: string;
  to?: string;
  version?: string;
  risk?: string;
  cause?: string;
  actor?: string;
  detail?: Record<string, unknown>;
}

const dirs: Array<{ remove(): void }> = [];
let server: TestServer;
let db: string;
let tree: string;
let secretFile: string;
let clock: ManualClock;

/** What the change sinks were given, and whether the next call of the failing one throws. */
const sunk: Change[][] = [];
let sinkFails = false;
const sinks: ChangeSink[] = [
  async (tx, changes) => {
    // Called inside the recording transaction: the changes it just stored are there to read back.
    expect((await tx.history.list({ limit: 1000 })).length).toBeGreaterThanOrEqual(changes.length);
    sunk.push([...changes]);
  },
  async () => {
    if (sinkFails) throw new Error('the sink is down');
  },
];

const start = async (): Promise<TestServer> =>
  startServer({ graphData: tree, db, auth: { secretFile, rateLimit: 1000 }, clock, changeSinks: sinks });

const token = (subject: string): Promise<string> =>
  createToken(
    { adminJwtSecretFile: secretFile, scope: 'releases:write,channels:write,risks:write', ttl: '30d', subject },
    new Date(clock.now()),
  );

async function write(method: string, path: string, body: unknown, subject = 'alice'): Promise<void> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await token(subject)}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, await res.text()).toBeLessThan(300);
  // The write answers before the graph is rebuilt and its changes recorded: wait for both.
  await server.service.caughtUp();
  await server.history.idle();
}

async function changes(
  query = '',
): Promise<{ status: number; body: { changes: StoredChange[]; nextCursor?: string } }> {
  const res = await fetch(`${server.url}/api/v1/changes${query}`);
  return { status: res.status, body: (await res.json()) as never };
}

const promote = (kind: string, name: string, version: string, subject?: string): Promise<void> =>
  write('POST', `/api/v1/${kind}/${name}/versions`, { version }, subject);

beforeEach(async () => {
  sunk.splice(0);
  sinkFails = false;
  clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const d = tempDir();
  dirs.push(d);
  secretFile = join(d.path, 'secret');
  writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
  tree = ladder(join(d.path, 'tree'));
  db = join(d.path, 'store.db');
  server = await start();
  await server.history.idle();
});
afterEach(async () => {
  await server?.close();
});
afterAll(() => dirs.forEach((d) => d.remove()));

describe('graph history', () => {
  it('starts empty: the first graph served is where history begins', async () => {
    const r = await changes();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ changes: [] });
  });

  it('records a promotion with its edges, cause and actor', async () => {
    await promote('internal-channels', 'candidate', '4.16.1');
    await promote('internal-channels', 'fast', '4.16.1');
    // Internal channels are not served: nothing changed yet.
    expect((await changes()).body.changes).toEqual([]);
    await promote('channels', 'fast-4.16', '4.16.1', 'carol');
    const got = (await changes()).body.changes;
    expect(
      got.map(({ kind, channel, arch, version, from, to, cause, actor }) => ({
        kind,
        channel,
        arch,
        version,
        from,
        to,
        cause,
        actor,
      })),
    ).toEqual([
      {
        kind: 'edge-added',
        channel: 'fast-4.16',
        arch: 'amd64',
        version: undefined,
        from: '4.15.1',
        to: '4.16.1',
        cause: 'promotion',
        actor: 'carol',
      },
      {
        kind: 'release-added',
        channel: 'fast-4.16',
        arch: 'amd64',
        version: '4.16.1',
        from: undefined,
        to: undefined,
        cause: 'promotion',
        actor: 'carol',
      },
    ]);
    expect(got[0]!.id).toBeGreaterThan(got[1]!.id);
    expect(got[0]!.at).toBe('2026-01-01T00:00:00.000Z');
  });

  it('records a risk declared and withdrawn, and the edges it makes conditional', async () => {
    await promote('internal-channels', 'candidate', '4.16.1');
    await promote('internal-channels', 'fast', '4.16.1');
    await promote('channels', 'fast-4.16', '4.16.1');
    const risk = {
      to: '4.16.1',
      from: '4[.]15[.].*',
      url: 'https://issues.example/1',
      name: 'Boom',
      message: 'It breaks.',
      matchingRules: [{ type: 'Always' }],
    };
    await write('POST', '/api/v1/risks', risk, 'bob');
    let got = (await changes('?kind=risk-declared,risk-withdrawn')).body.changes;
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      kind: 'risk-declared',
      channel: 'fast-4.16',
      arch: 'amd64',
      risk: 'Boom',
      cause: 'risk',
      actor: 'bob',
      detail: { message: 'It breaks.', url: 'https://issues.example/1', edges: [{ from: '4.15.1', to: '4.16.1' }] },
    });
    await write('DELETE', '/api/v1/risks/4.16.1-Boom?reason=fixed', undefined, 'dave');
    got = (await changes('?kind=risk-withdrawn')).body.changes;
    expect(got).toMatchObject([{ kind: 'risk-withdrawn', risk: 'Boom', actor: 'dave', cause: 'risk' }]);
  });

  it('records a tombstone as the cause of a release withdrawn', async () => {
    await promote('internal-channels', 'candidate', '4.16.1');
    await promote('internal-channels', 'fast', '4.16.1');
    await promote('channels', 'fast-4.16', '4.16.1');
    await write('DELETE', '/api/v1/channels/fast-4.16/versions/4.16.1?reason=broken', undefined, 'erin');
    const got = (await changes('?channel=fast-4.16')).body.changes;
    expect(got.slice(0, 2)).toMatchObject([
      { kind: 'edge-removed', from: '4.15.1', to: '4.16.1', cause: 'tombstone', actor: 'erin' },
      { kind: 'release-withdrawn', version: '4.16.1', cause: 'tombstone', actor: 'erin' },
    ]);
  });

  it('filters by channel, arch, kind and time, and pages newest first', async () => {
    await promote('internal-channels', 'candidate', '4.16.1');
    await promote('internal-channels', 'fast', '4.16.1');
    clock.advance(86400e3);
    await promote('channels', 'fast-4.16', '4.16.1');
    const all = (await changes()).body.changes;
    expect(all).toHaveLength(2);
    expect((await changes('?channel=stable-4.16')).body.changes).toEqual([]);
    expect((await changes('?arch=arm64')).body.changes).toEqual([]);
    expect((await changes('?channel=fast-4.16&arch=amd64&kind=edge-added')).body.changes).toHaveLength(1);
    expect((await changes('?since=2026-01-02T00:00:00Z')).body.changes).toHaveLength(2);
    expect((await changes('?until=2026-01-02T00:00:00Z')).body.changes).toHaveLength(0);
    const first = (await changes('?limit=1')).body;
    expect(first.changes).toEqual([all[0]]);
    const second = (await changes(`?limit=1&cursor=${first.nextCursor}`)).body;
    expect(second).toEqual({ changes: [all[1]] });
  });

  it('refuses a bad query with a 400 naming the field', async () => {
    for (const [query, field] of [
      ['?since=yesterday', 'since'],
      ['?until=2026-13-01', 'until'],
      ['?kind=edge-moved', 'kind'],
      ['?channel=Bad/Channel', 'channel'],
      ['?limit=0', 'limit'],
      ['?cursor=nonsense', 'cursor'],
      ['?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z', 'until'],
    ]) {
      const r = await changes(query);
      expect(r.status, query).toBe(400);
      expect(JSON.stringify(r.body), query).toContain(field);
    }
  });

  it('keeps the history across a restart and records nothing again', async () => {
    await promote('internal-channels', 'candidate', '4.16.1');
    await promote('internal-channels', 'fast', '4.16.1');
    await promote('channels', 'fast-4.16', '4.16.1');
    const before = (await changes()).body.changes;
    expect(before).toHaveLength(2);
    await server.close();
    server = await start();
    await server.history.idle();
    expect((await changes()).body.changes).toEqual(before);
    expect(server.history.lastOutcome).toEqual({ skipped: 'already-recorded' });
    await promote('internal-channels', 'candidate', '4.16.3');
    await promote('internal-channels', 'fast', '4.16.3');
    await promote('channels', 'fast-4.16', '4.16.3');
    const after = (await changes()).body.changes;
    expect(after.slice(2)).toEqual(before);
    expect(
      after
        .slice(0, 2)
        .map((c) => c.kind)
        .sort(),
    ).toEqual(['edge-added', 'release-added']);
  });

  it('hands every batch to the change sinks in its transaction; a sink that fails leaves nothing stored, and the next graph records it', async () => {
    await promote('internal-channels', 'candidate', '4.16.1');
    await promote('internal-channels', 'fast', '4.16.1');
    sinkFails = true;
    await promote('channels', 'fast-4.16', '4.16.1');
    expect(server.history.failures).toBe(1);
    expect((await changes()).body.changes).toEqual([]);
    sinkFails = false;
    sunk.splice(0);
    await write('POST', '/api/v1/risks', {
      to: '4.16.1',
      from: '4[.]15[.].*',
      url: 'https://issues.example/1',
      name: 'Boom',
      message: 'It breaks.',
      matchingRules: [{ type: 'Always' }],
    });
    // The promotion missed and the risk, in one batch, given to the sink as they are stored.
    const stored = (await changes()).body.changes;
    expect(stored.map((c) => c.kind).sort()).toEqual(['edge-added', 'release-added', 'risk-declared']);
    expect(sunk).toHaveLength(1);
    expect(sunk[0]!.map((c) => c.kind).sort()).toEqual(['edge-added', 'release-added', 'risk-declared']);
  });

  it('forgets changes older than the retention (90 days by default) when it records the next ones', async () => {
    await promote('internal-channels', 'candidate', '4.16.1');
    await promote('internal-channels', 'fast', '4.16.1');
    await promote('channels', 'fast-4.16', '4.16.1');
    expect((await changes()).body.changes).toHaveLength(2);
    clock.advance(91 * 86400e3);
    await write('POST', '/api/v1/risks', {
      to: '4.16.1',
      from: '4[.]15[.].*',
      url: 'https://issues.example/1',
      name: 'Boom',
      message: 'It breaks.',
      matchingRules: [{ type: 'Always' }],
    });
    expect((await changes()).body.changes.map((c) => c.kind)).toEqual(['risk-declared']);
  });
});
