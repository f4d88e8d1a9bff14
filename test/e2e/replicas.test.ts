// Several `cincy serve` processes sharing one store, as users run them: real processes on
// free ports, a real PostgreSQL of the test's own (and, for the embedded engine, one SQLite file).
// A write through one replica is served by the others; racing writers lose nothing and leave no half
// state; a replica killed mid-stream loses no acknowledged write; the database stopped and started
// never stops the graph; the jobs that run once move to another replica when their holder dies.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresLeadership } from '../../src/store/leadership.js';
import { cincy, serveCli, useCleanup, type Served } from '../support/cli.js';
import { usePostgres } from '../support/postgres.js';
import { freePort } from '../support/prometheus.js';
import { release, writeTree } from '../support/trees.js';

const cleanup = useCleanup();
// A server of the file's own: tests stop and pause it.
const postgres = usePostgres({ own: true });

interface Setup {
  tree: string;
  secret: string;
  token: string;
}

/** A tree with a feeder (fast-4.1 takes what candidate-4.1 has, at once), an admin secret and a token. */
function setup(): Setup {
  const work = cleanup.dir();
  const secret = join(work, 'secret');
  writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
  const tree = writeTree(join(work, 'tree'), {
    'channels/candidate-4.1.yaml': 'name: candidate-4.1\nversions: [4.1.0]\n',
    'channels/fast-4.1.yaml': 'feeder:\n  name: candidate-4.1\n  delay: PT0H\nname: fast-4.1\nversions: []\n',
  });
  const scope = 'channels:write,releases:write';
  const token = cincy(['token', 'create', '--admin-jwt-secret-file', secret, '--scope', scope]).stdout.trim();
  return { tree, secret, token };
}

function replica(s: Setup, db: string, extra: string[] = [], until?: 'listening'): Promise<Served> {
  const args = ['--db', db, '--graph-data', s.tree, '--admin-jwt-secret-file', s.secret, ...extra];
  return serveCli(args, cleanup, {}, until);
}

async function call(url: string, token: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

async function nodes(url: string, channel: string): Promise<string[]> {
  const res = await fetch(`${url}/graph?channel=${channel}`, { headers: { accept: 'application/json' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { nodes: Array<{ version: string }> }).nodes.map((n) => n.version).sort();
}

async function channelVersions(url: string, name: string): Promise<string[] | undefined> {
  const res = await fetch(`${url}/api/v1/channels/${name}?limit=1000`);
  if (res.status === 404) return undefined;
  expect(res.status).toBe(200);
  return ((await res.json()) as { versions: Array<{ version: string }> }).versions.map((v) => v.version);
}

/** Snapshots a replica made, by how: `channels` derived from the last one, `worker` built anew. */
async function builds(url: string, how: 'channels' | 'worker'): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`cincy_graph_builds_total{how="${how}"} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

async function readyz(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function eventually<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read().catch((err: unknown) => err as T);
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A failure with the replicas' last log lines added, for a failure seen only on a CI machine. */
const withLogs =
  (replicas: Served[]) =>
  (err: Error): never => {
    const logs = replicas.map((r, i) => `replica ${i}:\n${r.log().slice(-3000)}`).join('\n');
    throw new Error(`${err.message}\n${logs}`);
  };

/** Releases 4.2.0 … 4.2.<n-1>, each its own payload. */
const releases = (n: number): object[] =>
  Array.from(
    { length: n },
    (_, i) =>
      JSON.parse(
        release(`4.2.${i}`, { payload: `quay.example/ocp/release@sha256:${String(i).padStart(64, 'c')}` }),
      ) as object,
  );

async function query<T extends pg.QueryResultRow>(db: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!postgres.available)('replicas sharing one PostgreSQL', { timeout: 120_000 }, () => {
  it('a write through one replica is served by every other, in the graph and the admin API', async () => {
    const s = setup();
    const db = await postgres.database();
    // One after another, so that each starts from the imported tree (a replica that connected before the
    // import was committed would build again once it learns of it).
    const [a, b, c] = [await replica(s, db), await replica(s, db), await replica(s, db)];
    const before = await Promise.all(
      [b, c].map(async (r) => ({ channels: await builds(r.url, 'channels'), worker: await builds(r.url, 'worker') })),
    );
    const put = await call(a.url, s.token, 'PUT', '/api/v1/channels/stable-4.2', { versions: ['4.1.1'] });
    expect(put.status).toBe(201);
    for (const [i, r] of [b, c].entries()) {
      await eventually(
        'stable-4.2 on another replica',
        () => nodes(r.url, 'stable-4.2'),
        (v) => v.length === 1,
      );
      expect(await channelVersions(r.url, 'stable-4.2')).toEqual(['4.1.1']);
      // Told which channel changed, the replica derived its graph from the last one instead of building it.
      expect(await builds(r.url, 'channels')).toBe(before[i]!.channels + 1);
      expect(await builds(r.url, 'worker')).toBe(before[i]!.worker);
    }
    // A release added through a third replica (more than channels: the others build their graph
    // anew), then promoted through a second (the promotion reads the store, not the graph).
    const workerBuilds = await builds(a.url, 'worker');
    expect((await call(c.url, s.token, 'POST', '/api/v1/releases', releases(1))).status).toBe(201);
    const promoted = await call(b.url, s.token, 'POST', '/api/v1/channels/stable-4.1/versions', { version: '4.2.0' });
    expect(promoted.status).toBe(201);
    for (const r of [a, c])
      await eventually(
        '4.2.0 in stable-4.1',
        () => nodes(r.url, 'stable-4.1'),
        (v) => v.includes('4.2.0'),
      );
    expect(await builds(a.url, 'worker')).toBeGreaterThan(workerBuilds);
    expect(b.log()).toContain('the database was changed by another process; rebuilding');
  });

  it('a notification lost (the listening connection cut) is made up by the generation check', async () => {
    const s = setup();
    const db = await postgres.database();
    const [a, b] = await Promise.all([replica(s, db), replica(s, db)]);
    // Every LISTENing connection of this database is cut: a write now notifies no one.
    const listening = `FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'cincy-listener'`;
    await eventually(
      'both replicas listening',
      () => query<{ n: number }>(db, `SELECT count(*)::int AS n ${listening}`),
      (rows) => rows[0]!.n >= 2,
    );
    await query(db, `SELECT pg_terminate_backend(pid) ${listening}`);
    expect((await call(a!.url, s.token, 'PUT', '/api/v1/channels/lost', { versions: ['4.1.0'] })).status).toBe(201);
    await eventually(
      'the write on b',
      () => channelVersions(b!.url, 'lost'),
      (v) => v?.length === 1,
    );
    await eventually(
      'the graph on b',
      () => nodes(b!.url, 'lost'),
      (v) => v.length === 1,
    );
  });

  it('concurrent writers racing on one channel never lose a write or leave a half state', async () => {
    const s = setup();
    const db = await postgres.database();
    const replicas = await Promise.all([replica(s, db), replica(s, db), replica(s, db)]);
    const [a] = replicas;
    expect((await call(a!.url, s.token, 'POST', '/api/v1/releases', releases(30))).status).toBe(201);
    expect((await call(a!.url, s.token, 'PUT', '/api/v1/channels/race', { versions: [] })).status).toBe(201);
    // Thirty promotions into one channel at once, spread over the three replicas.
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(replicas[i % 3]!.url, s.token, 'POST', '/api/v1/channels/race/versions', { version: `4.2.${i}` }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(201));
    const members = (await channelVersions(a!.url, 'race'))!;
    expect([...members].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `4.2.${i}`).sort());
    const positions = await query<{ position: number }>(
      db,
      "SELECT position FROM channel_versions WHERE channel = 'race' ORDER BY position",
    );
    expect(positions.map((p) => p.position)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    // Ten replacements of one channel at once: it ends as one of them whole, and each is audited.
    const bodies = Array.from({ length: 10 }, (_, i) => ({ versions: [`4.2.${i}`, `4.2.${i + 10}`, `4.2.${i + 20}`] }));
    const replaced = await Promise.all(
      bodies.map((body, i) => call(replicas[i % 3]!.url, s.token, 'PUT', '/api/v1/channels/whole', body)),
    );
    expect(replaced.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const final = await channelVersions(a!.url, 'whole');
    expect(bodies.map((body) => body.versions)).toContainEqual(final);
    const audit = await query<{ n: number }>(
      db,
      "SELECT count(*)::int AS n FROM audit WHERE target = 'public/whole' OR target = 'public/race'",
    );
    expect(audit[0]!.n).toBe(1 + 30 + 10);
  });

  it('kill -9 of a replica in the middle of a stream of writes: every write that got a 2xx is there', async () => {
    const s = setup();
    const db = await postgres.database();
    const [a, b] = await Promise.all([replica(s, db), replica(s, db)]);
    const acknowledged: string[] = [];
    let next = 0;
    let killed = false;
    const writer = async (): Promise<void> => {
      while (!killed) {
        const name = `stream-${next++}`;
        const res = await call(a!.url, s.token, 'PUT', `/api/v1/channels/${name}`, { versions: ['4.1.0'] }).catch(
          () => undefined,
        );
        if (res && res.status >= 200 && res.status < 300) acknowledged.push(name);
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    await eventually(
      'writes under way',
      async () => acknowledged.length,
      (n) => n >= 20,
    );
    a!.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    const stored = await query<{ name: string }>(db, "SELECT name FROM channels WHERE name LIKE 'stream-%'");
    const names = new Set(stored.map((r) => r.name));
    expect(acknowledged.filter((n) => !names.has(n))).toEqual([]);
    // The survivor serves them too.
    const last = acknowledged[acknowledged.length - 1]!;
    await eventually(
      'the last acknowledged write on b',
      () => nodes(b!.url, last),
      (v) => v.length === 1,
    );
  });

  it('the database stopped and started: replicas serve the graph throughout, writes answer 503, and both recover', async () => {
    const s = setup();
    const db = await postgres.database();
    const [a, b] = await Promise.all([replica(s, db), replica(s, db)]);
    const before = await nodes(b!.url, 'stable-4.1');
    await postgres.server().stop();
    try {
      for (const r of [a!, b!]) {
        expect(await nodes(r.url, 'stable-4.1')).toEqual(before);
        const ready = await eventually(
          'readyz naming the database',
          () => readyz(r.url),
          (v) => !!v.body.database,
        );
        expect(ready.status).toBe(200);
        expect(String(ready.body.database)).toMatch(/unreachable/);
      }
      const refused = await call(a!.url, s.token, 'PUT', '/api/v1/channels/while-down', { versions: ['4.1.0'] });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { value: string }).value).toMatch(/unreachable.*nothing was written/);
      expect(await (await fetch(`${a!.url}/metrics`)).text()).toContain('cincy_database_up 0');
      expect(await nodes(a!.url, 'stable-4.1')).toEqual(before);
    } finally {
      await postgres.server().start();
    }
    const written = await eventually(
      'a write once the database is back',
      () => call(a!.url, s.token, 'PUT', '/api/v1/channels/after', { versions: ['4.1.1'] }),
      (r) => r.status === 201,
    );
    expect(written.status).toBe(201);
    await eventually(
      'the write on b',
      () => channelVersions(b!.url, 'after'),
      (v) => v?.length === 1,
    );
    await eventually(
      'readyz without a database problem',
      () => readyz(b!.url),
      (v) => !v.body.database,
    );
    expect(await channelVersions(b!.url, 'while-down')).toBeUndefined();
  });

  it('hostile finding 8: a paused database (every process stopped) shows on /readyz in seconds, and clears when it goes on', async () => {
    const s = setup();
    const db = await postgres.database();
    const a = await replica(s, db);
    const before = await nodes(a.url, 'stable-4.1');
    postgres.server().pause();
    try {
      const ready = await eventually(
        'readyz naming the paused database',
        () => readyz(a.url),
        (v) => !!v.body.database,
      );
      // The health check's own bound, not a query's timeout, reports it.
      expect(String(ready.body.database)).toMatch(/has not answered a query for more than 2 s/);
      expect(await nodes(a.url, 'stable-4.1')).toEqual(before);
      expect(await (await fetch(`${a.url}/metrics`)).text()).toContain('cincy_database_up 0');
    } finally {
      postgres.server().resume();
    }
    await eventually(
      'readyz without a database problem',
      () => readyz(a.url),
      (v) => !v.body.database,
    );
  });

  it('auto-promotion runs on one replica, and moves to another within an interval when it dies', async () => {
    const s = setup();
    const db = await postgres.database();
    const auto = ['--auto-promote', '--auto-promote-interval', '1'];
    const replicas = await Promise.all([replica(s, db, auto), replica(s, db, auto)]);
    await eventually(
      'fast-4.1 fed',
      () => nodes(replicas[0]!.url, 'fast-4.1'),
      (v) => v.includes('4.1.0'),
    ).catch(withLogs(replicas));
    const leaders = async (): Promise<boolean[]> =>
      Promise.all(replicas.map(async (r) => (await readyz(r.url)).body.leader === true));
    const first = await eventually('one leader', leaders, (l) => l.filter(Boolean).length === 1);
    const leader = replicas[first.indexOf(true)]!;
    const survivor = replicas[first.indexOf(false)]!;
    leader.child.kill('SIGKILL');
    const added = await call(survivor.url, s.token, 'POST', '/api/v1/channels/candidate-4.1/versions', {
      version: '4.1.1',
    });
    expect(added.status).toBe(201);
    await eventually(
      '4.1.1 fed to fast-4.1 by the survivor',
      () => nodes(survivor.url, 'fast-4.1'),
      (v) => v.includes('4.1.1'),
    );
    expect((await readyz(survivor.url)).body.leader).toBe(true);
    const feeder = await query<{ target: string; after: string }>(
      db,
      "SELECT target, after FROM audit WHERE actor = 'feeder' ORDER BY id",
    );
    // Each version promoted once: no pass ran twice on two replicas.
    expect(feeder.map((e) => [e.target, (JSON.parse(e.after) as { version: string }).version])).toEqual([
      ['public/fast-4.1', '4.1.0'],
      ['public/fast-4.1', '4.1.1'],
    ]);
  });

  it('replicas starting together on an empty database migrate it once', async () => {
    const s = setup();
    const db = await postgres.database();
    await Promise.all([replica(s, db), replica(s, db), replica(s, db)]);
    const rows = await query<{ version: number }>(db, 'SELECT version FROM schema_migrations ORDER BY version');
    // Every migration in the folder, each applied once.
    const files = readdirSync(join(import.meta.dirname, '../../migrations/postgres')).filter((f) => f.endsWith('.sql'));
    expect(files.length).toBeGreaterThanOrEqual(6);
    expect(rows.map((r) => r.version)).toEqual(files.map((f) => Number(f.slice(0, 3))).sort((a, b) => a - b));
    const imports = await query<{ n: number }>(db, 'SELECT count(*)::int AS n FROM imports');
    expect(imports[0]!.n).toBe(1); // the same tree, imported by the first only
  });

  it('a replica started before its database listens, says why it is not ready, and serves once the database is up', async () => {
    const s = setup();
    const db = await postgres.database();
    await postgres.server().stop();
    let r: Served;
    try {
      r = await replica(s, db, [], 'listening');
      expect((await fetch(`${r.url}/livez`)).status).toBe(200);
      const waiting = await eventually(
        'a reason',
        () => readyz(r.url),
        (v) => !!v.body.reason,
      );
      expect(waiting.status).toBe(503);
      expect(String(waiting.body.reason)).toMatch(/unreachable.*trying again in/);
      expect(String(waiting.body.reason)).not.toContain('password');
      expect((await fetch(`${r.url}/graph?channel=stable-4.1`)).status).toBe(503);
    } finally {
      await postgres.server().start();
    }
    await eventually(
      'ready once the database is up',
      () => readyz(r.url),
      (v) => v.status === 200,
      60_000,
    );
    expect(await nodes(r.url, 'stable-4.1')).toEqual(['4.1.0', '4.1.1']);
  });
});

describe('a password in the database URL', () => {
  it('appears in no log line, answer or message: serve waiting for the database, import and export failing', async () => {
    const s = setup();
    const closed = await freePort(); // nothing listens there
    for (const url of [
      `postgres://cincy:sekret-in-user-part@127.0.0.1:${closed}/cincy`,
      `postgres://cincy@127.0.0.1:${closed}/cincy?password=sekret-in-parameter`,
    ]) {
      const r = await replica(s, url, [], 'listening');
      const waiting = await eventually(
        'a reason',
        () => readyz(r.url),
        (v) => !!v.body.reason,
      );
      expect(String(waiting.body.reason)).toMatch(/unreachable/);
      for (const text of [JSON.stringify(waiting.body), r.log(), await (await fetch(`${r.url}/metrics`)).text()])
        expect(text).not.toContain('sekret');
      r.child.kill('SIGKILL');
      for (const args of [
        ['import', '--graph-data', s.tree],
        ['export', cleanup.dir()],
      ]) {
        const out = cincy(args, { CINCY_DB: url });
        expect(out.code).not.toBe(0);
        expect(out.stderr).toMatch(/unreachable/);
        expect(out.stdout + out.stderr).not.toContain('sekret');
      }
    }
  });
});

describe.skipIf(!postgres.available)('leadership on PostgreSQL', () => {
  it('one holder at a time, however many jobs ask at once; the next takes over once it is released', async () => {
    const db = await postgres.database();
    const first = new PostgresLeadership(db);
    const second = new PostgresLeadership(db);
    cleanup.add(() => first.release());
    cleanup.add(() => second.release());
    // Jobs of one replica asking together share one ask: one connection, which holds the lock.
    expect(await Promise.all([first.holds(), first.holds(), first.holds()])).toEqual([true, true, true]);
    expect(await Promise.all([second.holds(), second.holds()])).toEqual([false, false]);
    const holders = await query<{ n: number }>(
      db,
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted",
    );
    expect(holders[0]!.n).toBe(1);
    await first.release();
    expect(await second.holds()).toBe(true);
    expect(await first.holds()).toBe(false);
  });
});

describe('two processes on one SQLite file', () => {
  it('a write through one is served by the other, in the graph and the admin API', async () => {
    const s = setup();
    const db = join(cleanup.dir(), 'cincy.db');
    const a = await replica(s, db);
    const b = await replica(s, db);
    expect((await call(a.url, s.token, 'PUT', '/api/v1/channels/shared', { versions: ['4.1.0'] })).status).toBe(201);
    await eventually(
      'the write on b',
      () => channelVersions(b.url, 'shared'),
      (v) => v?.length === 1,
    );
    await eventually(
      'the graph on b',
      () => nodes(b.url, 'shared'),
      (v) => v.length === 1,
    );
    expect((await call(b.url, s.token, 'PUT', '/api/v1/channels/shared', { versions: ['4.1.1'] })).status).toBe(200);
    await eventually(
      'the write on a',
      () => nodes(a.url, 'shared'),
      (v) => v[0] === '4.1.1',
    );
  });
});
