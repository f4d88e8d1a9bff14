// The store contract, the tests of `the store on <engine>`: imports upsert in one transaction, a rejected
// import changes nothing, restarts keep state, a schema newer than the program is refused, writes wait
// for the lock and give up, signatures stay. On SQLite they run in the service tier
// (test/service/store/store.test.ts), on a real PostgreSQL of the test's own (a process) in the e2e
// tier (test/e2e/store-import-postgres.test.ts).
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { GraphDataTree } from '../../src/graph/graphDataTree.js';
import { readGraphData } from '../../src/sources/graphData.js';
import { startService } from './service.js';
import { migrationsOf } from '../../src/store/migrations.js';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { LOCK_KEYS } from '../../src/store/postgresConnection.js';
import { SchemaTooNew, StoreUnavailable, type Engine } from '../../src/store/sql.js';
import type { SqliteDatabase } from '../../src/store/sqlite.js';
import { ImportRejected, Store } from '../../src/store/store.js';
import { UNSERVED, UPDATES_PER_CLUSTER } from '../../src/schemas/fleet.js';
import type { PolledCluster } from '../../src/store/fleet.js';
import type { OutcomeRow } from '../../src/store/fleetReports.js';
import { createAdminServices } from '../../src/app/admin/services.js';
import { GraphService } from '../../src/app/graphService.js';
import { quietLog } from './server.js';
import { useCleanup } from './cleanup.js';
import { release, writeTree } from './trees.js';

/** Registers the contract's tests in the describe that calls it; `database` gives each PostgreSQL database. */
export function storeContract(engine: Engine, database?: () => Promise<string>): void {
  const steps = useCleanup();
  const cleanup = { push: (f: () => unknown): void => steps.add(f) };
  const dir = (): string => steps.dir();

  async function readTree(files: Record<string, string | undefined> = {}): Promise<GraphDataTree> {
    const r = await readGraphData(writeTree(dir(), files));
    expect(r.errors).toEqual([]);
    return r.tree!;
  }

  /** Where a new store of the engine lives: a SQLite file (or :memory:), or a PostgreSQL database of its own. */
  async function location(engine: Engine, memory = true): Promise<string> {
    if (engine === 'postgres') return database!();
    return memory ? ':memory:' : join(dir(), 'cincy.db');
  }

  async function store(engine: Engine): Promise<Store> {
    const s = await Store.open(await location(engine));
    cleanup.push(() => s.close());
    return s;
  }
  const snapshot = async (s: Store): Promise<string> => JSON.stringify(await s.input());

  /** Holds the write lock of the store at `where` from another connection, until the returned call. */
  async function holdWriteLock(engine: Engine, where: string): Promise<() => Promise<void>> {
    if (engine === 'sqlite') {
      const other = new BetterSqlite3(where);
      other.exec('BEGIN IMMEDIATE');
      return async () => {
        other.exec('ROLLBACK');
        other.close();
      };
    }
    const other = new pg.Client({ connectionString: where });
    await other.connect();
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEYS.write]);
    return async () => {
      await other.query('ROLLBACK');
      await other.end();
    };
  }

  it('applies migrations once and records them, and refuses a schema newer than it knows', async () => {
    const where = await location(engine, false);
    await (await Store.open(where)).close();
    const s = await Store.open(where);
    cleanup.push(() => s.close());
    const rows = await s.read((tx) => tx.sql.all('SELECT version, name FROM schema_migrations ORDER BY version'));
    const files = migrationsOf(engine);
    expect(files.length).toBeGreaterThanOrEqual(4);
    expect(rows).toEqual(files.map((m) => ({ version: m.version, name: m.name })));
    if (engine === 'sqlite')
      expect((s.database as SqliteDatabase).db.pragma('journal_mode', { simple: true })).toBe('wal');
    // A newer cincy migrated this database: this one must not touch it.
    await s.write((tx) =>
      tx.sql.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '999_future.sql', 'x')"),
    );
    await expect(Store.open(where)).rejects.toThrow(SchemaTooNew);
    await expect(Store.open(where)).rejects.toThrow(/schema version 999, newer than this cincy knows/);
  });

  it('imports a tree, then skips the same content, then upserts a changed one', async () => {
    const s = await store(engine);
    const first = await s.importTree(await readTree(), { source: 'a' });
    expect(first.releases.added).toBe(2);
    expect(first.channels.added).toBe(1);
    expect(first.blockedEdges.added).toBe(1);
    expect((await s.importTree(await readTree(), { source: 'a' })).skipped).toBe(true);
    const changed = await s.importTree(
      await readTree({ 'channels/stable-4.1.yaml': 'name: stable-4.1\nversions:\n- 4.1.0\n' }),
      { source: 'b' },
    );
    expect(changed.channels.changed).toBe(1);
    expect(changed.releases.unchanged).toBe(2);
    expect((await s.read((tx) => tx.channels.get('public', 'stable-4.1')))!.versions).toEqual(['4.1.0']);
    const audit = await s.read((tx) => tx.audit.list());
    expect(audit.map((e) => [e.actor, e.action, e.target])).toEqual([
      ['import', 'import', 'b'],
      ['import', 'import', 'a'],
    ]);
  });

  it('keeps what the tree does not mention unless asked to prune', async () => {
    const s = await store(engine);
    await s.importTree(await readTree({ 'channels/fast-4.1.yaml': 'name: fast-4.1\nversions: [4.1.0]\n' }), {
      source: 'a',
    });
    const smaller = await readTree({ 'blocked-edges/4.1.1-Risk.yaml': undefined });
    await s.importTree(smaller, { source: 'b' });
    expect(await s.read((tx) => tx.channels.get('public', 'fast-4.1'))).toBeDefined();
    expect(await s.read((tx) => tx.blockedEdges.all())).toHaveLength(1);
    const pruned = await s.importTree(smaller, { source: 'b', prune: true });
    expect(pruned.channels.removed).toBe(1);
    expect(pruned.blockedEdges.removed).toBe(1);
    expect(await s.read((tx) => tx.channels.get('public', 'fast-4.1'))).toBeUndefined();
  });

  it('rejects a release whose payload changed, naming the file and field, and writes nothing', async () => {
    const s = await store(engine);
    await s.importTree(await readTree(), { source: 'a' });
    const before = await snapshot(s);
    const conflicting = await readTree({
      'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0, 4.1.1, 4.1.2]\n',
      'releases/amd64/4.1.2.json': release('4.1.2', { payload: `quay.example/ocp/release@sha256:${'c'.repeat(64)}` }),
      'releases/amd64/4.1.1.json': release('4.1.1', { payload: `quay.example/ocp/release@sha256:${'d'.repeat(64)}` }),
    });
    const rejected = await s.importTree(conflicting, { source: 'b' }).catch((err: unknown) => err);
    expect(rejected).toBeInstanceOf(ImportRejected);
    expect((rejected as ImportRejected).problems[0]).toMatchObject({
      file: 'releases/amd64/4.1.1.json',
      field: 'payload',
    });
    expect(await snapshot(s)).toBe(before);
  });

  it('rolls back an import that fails half-way', async () => {
    const s = await store(engine);
    await s.importTree(await readTree(), { source: 'a' });
    const before = await snapshot(s);
    const tree = await readTree({ 'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0]\n' });
    // The raw-metadata statement fails after releases and channels were written in the transaction.
    await s.write(async (tx) => {
      if (engine === 'sqlite')
        await tx.sql.run(
          "CREATE TRIGGER fail_raw BEFORE INSERT ON raw_metadata BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
        );
      else {
        await tx.sql.run(
          "CREATE FUNCTION fail_raw() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END; $$",
        );
        await tx.sql.run(
          'CREATE TRIGGER fail_raw BEFORE INSERT ON raw_metadata FOR EACH ROW EXECUTE FUNCTION fail_raw()',
        );
      }
    });
    await expect(
      s.importTree({ ...tree, rawMetadata: { '4.1.0': { description: 'x' } } }, { source: 'b' }),
    ).rejects.toThrow(/disk on fire/);
    expect(await snapshot(s)).toBe(before);
    expect((await s.read((tx) => tx.imports.last()))!.contentHash).not.toBe(tree.contentHash);
  });

  it('keeps admin writes across a restart and applies a changed tree on top', async () => {
    const db = await location(engine, false);
    const graphData = writeTree(dir());
    const a = await startService({ graphData, db, log: quietLog });
    if (!a.ok) throw new Error(a.problems.join('\n'));
    await a.store.write((tx) =>
      tx.blockedEdges.upsert({ id: 'admin-block', to: '4.1.1', from: '.*' }, new Date().toISOString()),
    );
    await a.close();
    writeTree(graphData, { 'channels/fast-4.1.yaml': 'name: fast-4.1\nversions: [4.1.1]\n' });
    const b = await startService({ graphData, db, log: quietLog });
    if (!b.ok) throw new Error(b.problems.join('\n'));
    // A changed tree is imported before the first graph.
    expect(b.service.importing).toBeUndefined();
    expect(await b.store.read((tx) => tx.blockedEdges.get('admin-block'))).toBeDefined();
    expect(b.service.current!.channels.has('fast-4.1')).toBe(true);
    await b.close();
    // Unchanged since its last import: the store's graph serves at once, and the import (skipped) follows.
    const c = await startService({ graphData, db, log: quietLog });
    if (!c.ok) throw new Error(c.problems.join('\n'));
    cleanup.push(() => c.close());
    expect(c.service.importing).toBe(graphData);
    expect(c.service.current!.channels.has('fast-4.1')).toBe(true);
    await c.firstRead;
    expect(c.service.importing).toBeUndefined();
    expect(c.service.lastImportFailure).toBeUndefined();
  });

  it('applies a changed tree on top of admin writes: promotions, withdrawals and deleted risks stay', async () => {
    const s = await store(engine);
    const channel = (name: string) => s.read((tx) => tx.channels.get('public', name));
    const admin = createAdminServices(s, new GraphService(s));
    const actor = { subject: 'alice' };
    const channels = { 'channels/fast-4.1.yaml': 'name: fast-4.1\nversions: [4.1.0]\n' };
    await s.importTree(await readTree(channels), { source: 'a' });
    await admin.promotion.promote('public', 'fast-4.1', { version: '4.1.1' }, actor);
    await admin.promotion.withdraw('public', 'stable-4.1', '4.1.0', 'pulled', actor);
    await admin.risks.deleteRisk('4.1.1-Risk', actor, null);
    // The tree changes elsewhere, and adds 4.1.2 to stable-4.1 and a tombstone to fast-4.1.
    const changed = await readTree({
      ...channels,
      'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0, 4.1.1, 4.1.2]\n',
      'channels/fast-4.1.yaml': 'name: fast-4.1\ntombstones: [4.0.9]\nversions: [4.1.0]\n',
      'releases/amd64/4.1.2.json': release('4.1.2', {
        previous: ['4.1.1'],
        payload: `quay.example/ocp/release@sha256:${'e'.repeat(64)}`,
      }),
    });
    const summary = await s.importTree(changed, { source: 'b' });
    expect(summary.blockedEdges.unchanged).toBe(1);
    expect(await channel('fast-4.1')).toMatchObject({ versions: ['4.1.0', '4.1.1'], tombstones: ['4.0.9'] });
    expect(await channel('stable-4.1')).toMatchObject({ versions: ['4.1.1', '4.1.2'], tombstones: ['4.1.0'] });
    expect(await s.read((tx) => tx.blockedEdges.get('4.1.1-Risk'))).toBeUndefined();
    // A tree that drops a version it listed before removes it; prune makes the store equal to the tree.
    await s.importTree(
      await readTree({
        ...channels,
        'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0, 4.1.1]\n',
        'releases/amd64/4.1.2.json': release('4.1.2', {
          previous: ['4.1.1'],
          payload: `quay.example/ocp/release@sha256:${'e'.repeat(64)}`,
        }),
      }),
      { source: 'c' },
    );
    expect((await channel('stable-4.1'))!.versions).toEqual(['4.1.1']);
    await s.importTree(changed, { source: 'd', prune: true });
    expect(await channel('stable-4.1')).toMatchObject({ versions: ['4.1.0', '4.1.1', '4.1.2'], tombstones: [] });
    expect(await s.read((tx) => tx.blockedEdges.get('4.1.1-Risk'))).toBeDefined();
  });

  it('a write that waits too long for another writer gives up, writing nothing', async () => {
    const where = await location(engine, false);
    const s = await Store.open(where, { sqlite: { busyWaitMs: 300 }, postgres: { lockWaitMs: 300 } });
    cleanup.push(() => s.close());
    // Another process in the middle of a write: SQLite's write lock, or the advisory lock of PostgreSQL writers.
    const release = await holdWriteLock(engine, where);
    try {
      const late = { name: 'late', internal: false, versions: [], tombstones: [] };
      const attempt = s.write((tx) => tx.channels.upsert(late, new Date().toISOString()));
      await expect(attempt).rejects.toThrow(StoreUnavailable);
      await expect(attempt).rejects.toThrow(/the database is busy: another (process|replica) has held its write lock/);
    } finally {
      await release();
    }
    expect(await s.read((tx) => tx.channels.get('public', 'late'))).toBeUndefined();
    await s.write((tx) => tx.channels.upsert({ name: 'late', internal: false, versions: [], tombstones: [] }, 'now'));
    expect(await s.read((tx) => tx.channels.get('public', 'late'))).toBeDefined();
  });

  it('stores signatures for good: never rewritten, never removed', async () => {
    const s = await store(engine);
    const digest = `sha256:${'a'.repeat(64)}`;
    const bytes = Buffer.from([0, 1, 2, 255]);
    const at = new Date().toISOString();
    const first = await s.write((tx) =>
      tx.signatures.add({ digest, envelope: 'jws', keyId: 'k', bytes, verifiedAt: at }),
    );
    expect(first.added).toBe(true);
    const again = await s.write((tx) =>
      tx.signatures.add({ digest, envelope: 'jws', keyId: 'k', bytes, verifiedAt: at }),
    );
    expect(again).toMatchObject({ added: false, signature: { n: 1 } });
    expect((await s.read((tx) => tx.signatures.get(digest, 1)))!.bytes.equals(bytes)).toBe(true);
    await expect(s.write((tx) => tx.sql.run("UPDATE signatures SET key_id = 'other'"))).rejects.toThrow(
      /never rewritten/,
    );
    await expect(s.write((tx) => tx.sql.run('DELETE FROM signatures'))).rejects.toThrow(/never removed/);
    expect(await s.read((tx) => tx.signatures.all())).toHaveLength(1);
  });

  /** One cluster's polls of one batch, at one version, at time `at`. */
  const polledAt = (id: string, at: number, version = '4.16.1', arch = 'amd64'): PolledCluster => ({
    id,
    channel: 'stable-4.16',
    arch,
    firstVersion: version,
    version,
    firstSeen: at,
    lastSeen: at,
    versionSince: at,
    polls: 1,
    moves: [],
  });
  /** An update a cluster reports, started (and first heard of) at `startedAt`, from 4.16.1 unless `more` says. */
  const outcomeRow = (startedAt: number, more: Partial<OutcomeRow>): OutcomeRow => ({
    from: '4.16.1',
    to: '4.16.2',
    startedAt,
    seenAt: startedAt,
    completedAt: null,
    failingSince: null,
    failingReason: null,
    ...more,
  });
  const clusterId = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

  /** One flush of a batch at the cap as the poll recorder makes it: merged, then the new ones admitted. */
  const flushAtCap = async (s: Store, batch: PolledCluster[], room: number) => {
    const merged = await s.write((tx) => tx.fleet.merge(batch, room));
    const since = Math.min(...batch.map((c) => c.firstSeen));
    const admitted = await s.write((tx) => tx.fleet.admit(merged.waiting, since));
    return { added: merged.added + admitted.added, evicted: admitted.evicted, overCap: admitted.overCap };
  };

  it('makes room at the cap with clusters on probation first, then the least recently seen, never with those of the batch', async () => {
    const s = await store(engine);
    const MIN = 60_000;
    // Five established clusters (seen over an hour) and, seen later, five that polled once.
    const established = Array.from({ length: 5 }, (_, i) => clusterId(i));
    const once = Array.from({ length: 5 }, (_, i) => clusterId(50 + i));
    await flushAtCap(
      s,
      established.map((id) => polledAt(id, 0)),
      10,
    );
    await flushAtCap(
      s,
      established.map((id) => polledAt(id, 60 * MIN)),
      10,
    );
    await flushAtCap(
      s,
      once.map((id) => polledAt(id, 70 * MIN)),
      10,
    );
    // Eight new ids at the cap: the five on probation make room first, then three established, oldest first.
    const flood = Array.from({ length: 30 }, (_, i) => clusterId(100 + i));
    expect(
      await flushAtCap(
        s,
        flood.slice(0, 8).map((id) => polledAt(id, 80 * MIN)),
        0,
      ),
    ).toEqual({
      added: 8,
      evicted: 8,
      overCap: 0,
    });
    const left = (await s.read((tx) => tx.fleet.clusters({}, 100))).map((c) => c.id);
    expect(left.filter((id) => once.includes(id))).toEqual([]);
    expect(left.filter((id) => established.includes(id))).toHaveLength(2);
    // Thirty more within the same batch's time: none of the clusters seen since it began makes room.
    expect(
      await flushAtCap(
        s,
        flood.map((id) => polledAt(id, 80 * MIN)),
        0,
      ),
    ).toMatchObject({
      evicted: 2,
      added: 2,
      overCap: 20,
    });
    expect(await s.read((tx) => tx.fleet.count())).toBe(10);
    // The established clusters poll again: they are back, in place of ids that did not come back.
    const again = await flushAtCap(
      s,
      established.map((id) => polledAt(id, 90 * MIN)),
      0,
    );
    expect(again).toMatchObject({ added: 5, overCap: 0 });
    expect(await s.read((tx) => tx.fleet.count())).toBe(10);
    const ids = (await s.read((tx) => tx.fleet.clusters({}, 100))).map((c) => c.id);
    expect(ids.filter((id) => established.includes(id))).toEqual(established);
    // A batch of a cluster it knows and new ones: the one it writes again is not among those making room.
    const mixed = await flushAtCap(s, [polledAt(established[0]!, 99 * MIN), polledAt(clusterId(999), 99 * MIN)], 0);
    expect(mixed).toEqual({ added: 1, evicted: 1, overCap: 0 });
    expect(await s.read((tx) => tx.fleet.clusters({ id: established[0] }, 1))).toHaveLength(1);
  });

  it('keeps only plausible updates, and the newest few of each cluster', async () => {
    const s = await store(engine);
    const id = clusterId(1);
    const merge = (c: PolledCluster) => s.write((tx) => tx.fleet.merge([c], 10));
    await merge(polledAt(id, 1000, '4.16.1'));
    expect(await merge(polledAt(id, 2000, '4.16.2'))).toMatchObject({ updates: 1, implausible: 0 });
    expect(await merge(polledAt(id, 3000, '4.16.1'))).toMatchObject({ updates: 0, implausible: 1 }); // a downgrade
    expect(await merge(polledAt(id, 4000, '4.16.3', 'arm64'))).toMatchObject({ updates: 0, implausible: 1 });
    expect(await merge(polledAt(id, 5000, UNSERVED, 'arm64'))).toMatchObject({ updates: 0, implausible: 1 });
    expect(await merge(polledAt(id, 6000, '4.16.4', 'arm64'))).toMatchObject({ updates: 0, implausible: 1 });
    // Kept as they were seen, the four that cannot be updates marked so, and left out of the updates' numbers.
    expect(await s.read((tx) => tx.fleet.historyOf(id))).toEqual([
      { from: '4.16.1', to: '4.16.2', lastAtFrom: 1000, firstAtTo: 2000 },
      { from: '4.16.2', to: '4.16.1', lastAtFrom: 2000, firstAtTo: 3000, suspicious: true },
      { from: '4.16.1', to: '4.16.3', lastAtFrom: 3000, firstAtTo: 4000, suspicious: true },
      { from: '4.16.3', to: UNSERVED, lastAtFrom: 4000, firstAtTo: 5000, suspicious: true },
      { from: UNSERVED, to: '4.16.4', lastAtFrom: 5000, firstAtTo: 6000, suspicious: true },
    ]);
    expect(await s.read((tx) => tx.fleetReports.startedCounts(0))).toEqual([
      { from: '4.16.1', to: '4.16.2', arch: 'amd64', started: 1 },
    ]);
    // Climbing one patch at a time, far more often than any cluster updates: the newest few are kept.
    for (let i = 5; i < 60; i++) await merge(polledAt(id, 10_000 + i, `4.16.${i}`, 'arm64'));
    const kept = await s.read((tx) => tx.fleet.historyOf(id));
    expect(kept).toHaveLength(UPDATES_PER_CLUSTER);
    expect(kept.at(-1)).toMatchObject({ from: '4.16.58', to: '4.16.59' });
  });

  it('lists the clusters of any number of groups', async () => {
    const s = await store(engine);
    await s.write((tx) =>
      tx.fleet.merge(
        Array.from({ length: 50 }, (_, i) => polledAt(clusterId(i), 1000, `4.16.${i % 5}`)),
        100,
      ),
    );
    // More groups than SQLite takes parameters (32,766), of which two hold clusters.
    const groups = Array.from({ length: 40_000 }, (_, i) => ({
      channel: 'stable-4.16',
      arch: 'amd64',
      version: `9.9.${i}`,
    }));
    groups.push({ channel: 'stable-4.16', arch: 'amd64', version: '4.16.1' });
    groups.push({ channel: 'stable-4.16', arch: 'amd64', version: '4.16.3' });
    const listed = await s.read((tx) => tx.fleet.clusters({ groups }, 100));
    expect(listed.map((c) => c.version).sort()).toEqual([...Array(10).fill('4.16.1'), ...Array(10).fill('4.16.3')]);
  });

  it('keeps what clusters report: the last report, the newest updates, where each stands and how long it took', async () => {
    const s = await store(engine);
    const H = 3_600_000;
    const row = (to: string, startedAt: number, more: Partial<OutcomeRow> = {}): OutcomeRow =>
      outcomeRow(startedAt, { to, ...more });
    // Clusters 1 and 2 poll on amd64; 3 only reports.
    await s.write((tx) => tx.fleet.merge([polledAt(clusterId(1), 10 * H), polledAt(clusterId(2), 10 * H)], 10));
    const put = (id: string, at: number, rows: OutcomeRow[]) =>
      s.write((tx) => tx.fleetReports.put(id, at, '{"kept":true}', rows));
    expect(await put(clusterId(1), 10 * H, [row('4.16.2', 9 * H, { completedAt: 9 * H + 600_000 })])).toBe(true);
    expect(await put(clusterId(2), 10 * H, [row('4.16.2', 9 * H, { completedAt: 9 * H + 1_800_000 })])).toBe(true);
    expect(await put(clusterId(3), 10 * H, [row('4.16.3', 9 * H, { failingSince: 9 * H, failingReason: 'X' })])).toBe(
      true,
    );
    // An older report (another replica, late) changes nothing.
    expect(await put(clusterId(3), 5 * H, [])).toBe(false);
    const clock = { silentBefore: 9 * H, timeoutBefore: 7 * H };
    const stats = await s.read((tx) => tx.fleetReports.outcomeStats(0, clock));
    const byEdge = Object.fromEntries(stats.map((e) => [`${e.to} ${e.arch}`, e]));
    expect(byEdge['4.16.2 amd64']).toEqual({
      from: '4.16.1',
      to: '4.16.2',
      arch: 'amd64',
      states: { progressing: 0, completed: 2, failing: 0, silent: 0 },
      medianMs: 600_000,
      p90Ms: 1_800_000,
    });
    expect(byEdge['4.16.3 (unknown)']!.states).toEqual({ progressing: 0, completed: 0, failing: 1, silent: 0 });
    // Silent: no report or poll since before silentBefore; timed out: seen before timeoutBefore.
    await put(clusterId(4), 10 * H, [row('4.16.4', 6 * H)]);
    await put(clusterId(5), 10 * H, [row('4.16.5', 9 * H)]);
    const later = await s.read((tx) =>
      tx.fleetReports.outcomeStats(0, { silentBefore: 10.5 * H, timeoutBefore: 7 * H }),
    );
    const state = (to: string) => later.find((e) => e.to === to)!.states;
    expect(state('4.16.4')).toMatchObject({ silent: 1 });
    expect(state('4.16.2')).toMatchObject({ completed: 2 });
    const now = await s.read((tx) => tx.fleetReports.outcomeStats(0, clock));
    expect(now.find((e) => e.to === '4.16.4')!.states).toMatchObject({ failing: 1 });
    expect(now.find((e) => e.to === '4.16.5')!.states).toMatchObject({ progressing: 1 });
    // A cluster's last report replaces its updates, in its history's order, each keeping when it was first seen.
    const newer = [
      row('4.17.1', 11 * H, { seenAt: 11 * H }),
      row('4.16.2', 9 * H, { seenAt: 1, completedAt: 9 * H + 600_000 }),
    ];
    await put(clusterId(1), 11 * H, newer);
    const kept = await s.read((tx) => tx.fleetReports.outcomesOf(clusterId(1)));
    expect(kept.map((o) => [o.to, o.seenAt])).toEqual([
      ['4.17.1', 11 * H],
      ['4.16.2', 9 * H],
    ]);
    // The same edge many times over in one cluster's history counts once.
    await put(
      clusterId(2),
      11 * H,
      [9, 8, 7].map((h) => row('4.16.2', h * H, { completedAt: h * H + 60_000 })),
    );
    const once = await s.read((tx) => tx.fleetReports.outcomeStats(0, clock));
    expect(once.find((e) => e.to === '4.16.2' && e.arch === 'amd64')!.states.completed).toBe(2);
    const started = await s.read((tx) => tx.fleetReports.startedCounts(0));
    expect(started.find((e) => e.to === '4.16.2')).toEqual({ from: '4.16.1', to: '4.16.2', arch: 'amd64', started: 2 });
    await put(clusterId(1), 12 * H, []);
    expect(await s.read((tx) => tx.fleetReports.outcomesOf(clusterId(1)))).toEqual([]);
    // Clusters 3, 4 and 5 last reported at 10 H; 1 and 2 later.
    expect(await s.write((tx) => tx.fleetReports.prune(10.5 * H))).toBe(3);
    expect(await s.read((tx) => tx.fleetReports.count())).toBe(2);
  });

  it("counts a rollout's clusters once each, by their newest attempt, reported or only polled", async () => {
    const s = await store(engine);
    const H = 3_600_000;
    const row = (from: string, startedAt: number, more: Partial<OutcomeRow> = {}): OutcomeRow =>
      outcomeRow(startedAt, { from, to: '4.16.2', ...more });
    const merge = (c: PolledCluster) => s.write((tx) => tx.fleet.merge([c], 100));
    const other = (c: PolledCluster): PolledCluster => ({ ...c, channel: 'fast-4.16' });
    // 1: polled across the edge and reported it failing; 2: polled across it only; 3: reported two
    // attempts, the newest completed; 4: on another channel; 5: took it before the rollout's start.
    for (const n of [1, 2, 3]) await merge(polledAt(clusterId(n), 10 * H));
    await merge(other(polledAt(clusterId(4), 10 * H)));
    await merge(polledAt(clusterId(5), 1 * H));
    for (const n of [1, 2]) await merge(polledAt(clusterId(n), 11 * H, '4.16.2'));
    await merge(other(polledAt(clusterId(4), 11 * H, '4.16.2')));
    await merge(polledAt(clusterId(5), 2 * H, '4.16.2'));
    const put = (n: number, rows: OutcomeRow[]) =>
      s.write((tx) => tx.fleetReports.put(clusterId(n), 12 * H, '{}', rows));
    await put(1, [row('4.16.1', 11 * H, { failingSince: 11 * H, failingReason: 'X' })]);
    await put(3, [
      row('4.16.1', 11 * H, { completedAt: 11.5 * H }),
      row('4.16.0', 10.5 * H, { failingSince: 10.5 * H }),
    ]);
    await put(4, [row('4.16.1', 11 * H, { failingSince: 11 * H })]);
    await put(5, [row('4.16.1', 2 * H, { failingSince: 2 * H })]);
    // Polled only: 6 on another channel; 7 reported another target, and 8 the target before the start, so
    // both count as polled; 9 came down to the target from 4.16.3 (implausible: not counted).
    await merge(other(polledAt(clusterId(6), 10 * H)));
    await merge(other(polledAt(clusterId(6), 11 * H, '4.16.2')));
    for (const n of [7, 8]) await merge(polledAt(clusterId(n), 10 * H, '4.16.0'));
    for (const n of [7, 8]) await merge(polledAt(clusterId(n), 11 * H, '4.16.2'));
    await put(7, [row('4.16.0', 11 * H, { to: '4.16.3', failingSince: 11 * H })]);
    await put(8, [row('4.16.0', 9 * H, { seenAt: 9 * H, failingSince: 9 * H })]);
    await merge(polledAt(clusterId(9), 10 * H, '4.16.3'));
    await merge(polledAt(clusterId(9), 11 * H, '4.16.2'));
    const clock = { silentBefore: 0, timeoutBefore: 0 };
    const rows = await s.read((tx) => tx.fleetReports.rolloutRows('stable-4.16', '4.16.2', 10 * H, clock));
    expect(rows.sort((a, b) => a.from.localeCompare(b.from))).toEqual([
      { from: '4.16.0', states: { progressing: 0, completed: 0, failing: 0, silent: 0 }, polledOnly: 2 },
      { from: '4.16.1', states: { progressing: 0, completed: 1, failing: 1, silent: 0 }, polledOnly: 1 },
    ]);
    // Another target, or a window starting after them all, counts no one.
    expect(await s.read((tx) => tx.fleetReports.rolloutRows('stable-4.16', '4.16.4', 0, clock))).toEqual([]);
    expect(await s.read((tx) => tx.fleetReports.rolloutRows('stable-4.16', '4.16.2', 13 * H, clock))).toEqual([]);
  });
}
