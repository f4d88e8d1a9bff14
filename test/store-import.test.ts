// The store contract: imports upsert in one transaction, a rejected import changes nothing, restarts
// keep state, a bad tree never stops serving.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from '../src/store/open.js';
import { describe, expect, it } from 'vitest';
import { readGraphData, type GraphDataTree } from '../src/sources/graphData.js';
import { startService } from '../src/app/start.js';
import { ImportRejected, Store } from '../src/store/store.js';
import { createAdminServices } from '../src/app/admin/services.js';
import { GraphService } from '../src/app/graphService.js';
import { quietLog, startServer } from './support/server.js';
import { useCleanup } from './support/cli.js';
import { release, writeTree } from './support/trees.js';

const steps = useCleanup();
const cleanup = { push: (f: () => unknown): void => steps.add(f) };
const dir = (): string => steps.dir();
async function readTree(files: Record<string, string | undefined> = {}): Promise<GraphDataTree> {
  const r = await readGraphData(writeTree(dir(), files));
  expect(r.errors).toEqual([]);
  return r.tree!;
}
function store(path = ':memory:'): Store {
  const s = Store.open(path);
  cleanup.push(() => s.close());
  return s;
}
const snapshot = (s: Store): string => JSON.stringify(s.input());

describe('store import', () => {
  it('applies migrations once and records them', () => {
    const path = join(dir(), 'cincy.db');
    store(path).close();
    const s = store(path);
    const rows = s.db.prepare('SELECT version, name FROM schema_migrations').all();
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith('.sql'))
      .sort();
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(rows).toEqual(files.map((name, i) => ({ version: i + 1, name })));
    expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('imports a tree, then skips the same content, then upserts a changed one', async () => {
    const s = store();
    const first = s.importTree(await readTree(), { source: 'a' });
    expect(first.releases.added).toBe(2);
    expect(first.channels.added).toBe(1);
    expect(first.blockedEdges.added).toBe(1);
    expect(s.importTree(await readTree(), { source: 'a' }).skipped).toBe(true);
    const changed = s.importTree(
      await readTree({ 'channels/stable-4.1.yaml': 'name: stable-4.1\nversions:\n- 4.1.0\n' }),
      { source: 'b' },
    );
    expect(changed.channels.changed).toBe(1);
    expect(changed.releases.unchanged).toBe(2);
    expect(s.channels.get('public', 'stable-4.1')!.versions).toEqual(['4.1.0']);
    expect(s.audit.list().map((e) => [e.actor, e.action, e.target])).toEqual([
      ['import', 'import', 'b'],
      ['import', 'import', 'a'],
    ]);
  });

  it('keeps what the tree does not mention unless asked to prune', async () => {
    const s = store();
    s.importTree(await readTree({ 'channels/fast-4.1.yaml': 'name: fast-4.1\nversions: [4.1.0]\n' }), { source: 'a' });
    const smaller = await readTree({ 'blocked-edges/4.1.1-Risk.yaml': undefined });
    s.importTree(smaller, { source: 'b' });
    expect(s.channels.get('public', 'fast-4.1')).toBeDefined();
    expect(s.blockedEdges.all()).toHaveLength(1);
    const pruned = s.importTree(smaller, { source: 'b', prune: true });
    expect(pruned.channels.removed).toBe(1);
    expect(pruned.blockedEdges.removed).toBe(1);
    expect(s.channels.get('public', 'fast-4.1')).toBeUndefined();
  });

  it('rejects a release whose payload changed, naming the file and field, and writes nothing', async () => {
    const s = store();
    s.importTree(await readTree(), { source: 'a' });
    const before = snapshot(s);
    const conflicting = await readTree({
      'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0, 4.1.1, 4.1.2]\n',
      'releases/amd64/4.1.2.json': release('4.1.2', { payload: `quay.example/ocp/release@sha256:${'c'.repeat(64)}` }),
      'releases/amd64/4.1.1.json': release('4.1.1', { payload: `quay.example/ocp/release@sha256:${'d'.repeat(64)}` }),
    });
    expect(() => s.importTree(conflicting, { source: 'b' })).toThrow(ImportRejected);
    try {
      s.importTree(conflicting, { source: 'b' });
    } catch (err) {
      expect((err as ImportRejected).problems[0]).toMatchObject({
        file: 'releases/amd64/4.1.1.json',
        field: 'payload',
      });
    }
    expect(snapshot(s)).toBe(before);
  });

  it('rolls back an import that fails half-way', async () => {
    const s = store();
    s.importTree(await readTree(), { source: 'a' });
    const before = snapshot(s);
    const tree = await readTree({ 'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0]\n' });
    // The raw-metadata statement fails after releases and channels were written in the transaction.
    s.db.exec("CREATE TRIGGER fail_raw BEFORE INSERT ON raw_metadata BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
    expect(() => s.importTree({ ...tree, rawMetadata: { '4.1.0': { description: 'x' } } }, { source: 'b' })).toThrow(
      /disk on fire/,
    );
    expect(snapshot(s)).toBe(before);
    expect(s.lastImport()!.contentHash).not.toBe(tree.contentHash);
  });

  it('keeps admin writes across a restart and applies a changed tree on top', async () => {
    const path = join(dir(), 'cincy.db');
    const graphData = writeTree(dir());
    const a = await startService({ graphData, db: path, log: quietLog });
    if (!a.ok) throw new Error(a.problems.join('\n'));
    a.store.blockedEdges.upsert({ id: 'admin-block', to: '4.1.1', from: '.*' }, new Date().toISOString());
    a.store.close();
    writeTree(graphData, { 'channels/fast-4.1.yaml': 'name: fast-4.1\nversions: [4.1.1]\n' });
    const b = await startService({ graphData, db: path, log: quietLog });
    if (!b.ok) throw new Error(b.problems.join('\n'));
    cleanup.push(() => b.store.close());
    expect(b.store.blockedEdges.get('admin-block')).toBeDefined();
    expect(b.service.current!.channels.has('fast-4.1')).toBe(true);
  });

  it('applies a changed tree on top of admin writes: promotions, withdrawals and deleted risks stay', async () => {
    const s = store();
    const admin = createAdminServices(s, new GraphService(s));
    const actor = { subject: 'alice' };
    const channels = { 'channels/fast-4.1.yaml': 'name: fast-4.1\nversions: [4.1.0]\n' };
    s.importTree(await readTree(channels), { source: 'a' });
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
    const summary = s.importTree(changed, { source: 'b' });
    expect(summary.blockedEdges.unchanged).toBe(1);
    expect(s.channels.get('public', 'fast-4.1')).toMatchObject({ versions: ['4.1.0', '4.1.1'], tombstones: ['4.0.9'] });
    expect(s.channels.get('public', 'stable-4.1')).toMatchObject({
      versions: ['4.1.1', '4.1.2'],
      tombstones: ['4.1.0'],
    });
    expect(s.blockedEdges.get('4.1.1-Risk')).toBeUndefined();
    // A tree that drops a version it listed before removes it; prune makes the store equal to the tree.
    s.importTree(
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
    expect(s.channels.get('public', 'stable-4.1')!.versions).toEqual(['4.1.1']);
    s.importTree(changed, { source: 'd', prune: true });
    expect(s.channels.get('public', 'stable-4.1')).toMatchObject({
      versions: ['4.1.0', '4.1.1', '4.1.2'],
      tombstones: [],
    });
    expect(s.blockedEdges.get('4.1.1-Risk')).toBeDefined();
  });
});

describe('serving through a bad tree', () => {
  it('refuses to start with an invalid tree and an empty store, listing every problem', async () => {
    const graphData = writeTree(dir(), { version: '2.0.0\n', 'channels/x.yaml': 'name: y\nversions: []\n' });
    const r = await startService({ graphData, db: ':memory:', log: quietLog });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toContain('version: -: schema major version 2 is not supported (this server reads 1.x)');
    expect(r.problems).toContain("channels/x.yaml: name: 'y' differs from the file name 'x'");
  });

  it('keeps serving the stored graph when the tree turns invalid, and says so on /readyz and /metrics', async () => {
    const path = join(dir(), 'cincy.db');
    const graphData = writeTree(dir());
    const first = await startServer({ graphData, db: path });
    const before = await (await fetch(`${first.url}/graph?channel=stable-4.1`)).text();
    await first.close();
    writeTree(graphData, { 'blocked-edges/bad.yaml': 'to: 4.1.1\nfrom: "(unclosed"\n' });
    const second = await startServer({ graphData, db: path });
    cleanup.push(() => second.close());
    expect(await (await fetch(`${second.url}/graph?channel=stable-4.1`)).text()).toBe(before);
    const ready = await fetch(`${second.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { lastImportFailure: { problems: string[] } };
    expect(body.lastImportFailure.problems[0]).toMatch(/^blocked-edges\/bad.yaml: from: invalid regular expression/);
    expect(await (await fetch(`${second.url}/metrics`)).text()).toContain('cincy_graph_import_failing 1');
  });

  it('keeps the last good snapshot when a rebuild fails', async () => {
    const server = await startServer({ graphData: writeTree(dir()) });
    cleanup.push(() => server.close());
    const before = server.service.current;
    server.store.db.exec("UPDATE releases SET metadata = 'not json'");
    expect(server.service.rebuild()).toBe(false);
    expect(server.service.current).toBe(before);
    const res = await fetch(`${server.url}/graph?channel=stable-4.1`, { headers: { accept: 'application/json' } });
    expect(((await res.json()) as { nodes: unknown[] }).nodes).toHaveLength(2);
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as {
      status: string;
      lastBuildFailure: { message: string };
    };
    expect(ready.status).toBe('ready');
    expect(ready.lastBuildFailure.message).toMatch(/JSON/);
    expect(await (await fetch(`${server.url}/metrics`)).text()).toContain('cincy_graph_build_failures_total 1');
  });
});
