// Writes next to other processes and the rebuilds they cause, against a real `cincy serve` on a database
// file: a write waits for another process's write lock without holding up /graph, the server serves what
// another process wrote, and rebuilds run on the build worker, coalesced, with each write answered once
// its graph is served. A write that waits too long is in test/service/app/admin/writes.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readGraphData } from '../../src/sources/graphData.js';
import { cincy, serveCli, useCleanup, type Served } from '../support/cli.js';
import { release, writeTree } from '../support/trees.js';

const cleanup = useCleanup();

interface Setup {
  tree: string;
  db: string;
  token: string;
  work: string;
}

function setup(scopes = ['channels:write']): Setup {
  const work = cleanup.dir();
  const secret = join(work, 'secret');
  writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
  const tree = writeTree(join(work, 'tree'), { 'channels/fast-4.1.yaml': 'name: fast-4.1\nversions: [4.1.0]\n' });
  const token = cincy([
    'token',
    'create',
    '--admin-jwt-secret-file',
    secret,
    '--scope',
    scopes.join(','),
  ]).stdout.trim();
  return { tree, db: join(work, 'cincy.db'), token, work };
}

async function serve(s: Setup): Promise<Served> {
  return serveCli(['--db', s.db, '--graph-data', s.tree, '--admin-jwt-secret-file', join(s.work, 'secret')], cleanup);
}

const versions = async (url: string, channel: string): Promise<string[]> => {
  const res = await fetch(`${url}/graph?channel=${channel}`, { headers: { accept: 'application/json' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { nodes: Array<{ version: string }> }).nodes.map((n) => n.version);
};

const putChannel = (url: string, token: string, name: string, versions: string[]): Promise<Response> =>
  fetch(`${url}/api/v1/channels/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ versions }),
  });

/** The value of one sample of a Prometheus text exposition, 0 when absent. */
async function metric(url: string, sample: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

async function eventually<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v)} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('writes next to another process', () => {
  it('reliability finding 8: a write waits for another process holding the write lock, /graph answers meanwhile, and the write lands once the lock is released', async () => {
    const s = setup();
    const server = await serve(s);
    // Another process in the middle of a write transaction, as `cincy import` is while it stores a tree.
    const other = new Database(s.db);
    cleanup.add(() => other.close());
    other.exec('BEGIN IMMEDIATE');
    let settled = false;
    const write = putChannel(server.url, s.token, 'fast-4.1', ['4.1.0', '4.1.1']).finally(() => (settled = true));
    // The server is not stuck behind the lock: reads are answered while the write waits.
    for (let i = 0; i < 5; i++) expect(await versions(server.url, 'stable-4.1')).toEqual(['4.1.0', '4.1.1']);
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    other.exec('ROLLBACK');
    const res = await write;
    expect(res.status).toBe(200); // fast-4.1 was there: replaced
    expect(await versions(server.url, 'fast-4.1')).toEqual(['4.1.0', '4.1.1']);
  });

  it('reliability finding 8: the server serves what `cincy import` wrote to its database, without a write of its own', async () => {
    const s = setup();
    const server = await serve(s);
    expect(await versions(server.url, 'fast-4.1')).toEqual(['4.1.0']);
    const changed = writeTree(join(s.work, 'changed'), {
      'channels/fast-4.1.yaml': 'name: fast-4.1\nversions: [4.1.0, 4.1.1]\n',
    });
    // Writes through the API go on while the import runs: none fails.
    const writes = Array.from({ length: 10 }, (_, i) => putChannel(server.url, s.token, `side-${i}`, ['4.1.0']));
    const imported = cincy(['import', '--graph-data', changed, '--db', s.db]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual(Array(10).fill(201));
    await eventually(
      'fast-4.1 after the import',
      () => versions(server.url, 'fast-4.1'),
      (v) => v.length === 2,
    );
    expect(server.log()).toContain('the database was changed by another process; rebuilding');
  });
});

describe('rebuilds after writes', () => {
  it('reliability finding 9: rebuilds leave the serving thread, writes that arrive together share one, and each write is served by the time it is answered', async () => {
    const s = setup(['channels:write', 'releases:write']);
    const server = await serve(s);
    const n = 20;
    // The first graph, after the tree was imported at start, was built by the thread that had just written
    // it, before the first graph was served (firstGraph.ts); every build after it runs on the worker.
    expect(await metric(server.url, 'cincy_graph_builds_total{how="main"}')).toBe(1);
    const atStart = await metric(server.url, 'cincy_graph_builds_total{how="worker"}');
    expect(atStart).toBe(0);
    // Channel writes: the next snapshot is derived from the served one, not built.
    const channelWrites = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const res = await putChannel(server.url, s.token, `burst-${i}`, ['4.1.0', '4.1.1']);
        // Read-your-writes: the answer comes after the graph with the write is served.
        return { status: res.status, served: await versions(server.url, `burst-${i}`) };
      }),
    );
    expect(channelWrites.map((r) => r.status)).toEqual(Array(n).fill(201));
    expect(channelWrites.map((r) => r.served)).toEqual(Array(n).fill(['4.1.0', '4.1.1']));
    const derived = await metric(server.url, 'cincy_graph_builds_total{how="channels"}');
    expect(derived).toBeGreaterThanOrEqual(1); // each is quick: writes coalesce only while one runs
    expect(derived).toBeLessThanOrEqual(n);
    expect(await metric(server.url, 'cincy_graph_builds_total{how="worker"}')).toBe(atStart);
    // Release writes: full builds, on the worker.
    const releaseWrites = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const version = `4.1.${i + 2}`;
        const res = await fetch(`${server.url}/api/v1/releases`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
          body: release(version, {
            previous: ['4.1.1'],
            payload: `quay.example/ocp/release@sha256:${String(i).padStart(64, 'c')}`,
          }),
        });
        const put = await putChannel(server.url, s.token, `with-${version}`, [version]);
        return { status: res.status, put: put.status, served: await versions(server.url, `with-${version}`) };
      }),
    );
    expect(releaseWrites.map((r) => [r.status, r.put])).toEqual(Array(n).fill([201, 201]));
    expect(releaseWrites.map((r) => r.served.length)).toEqual(Array(n).fill(1));
    // No build ran on the thread that serves requests once it served.
    expect(await metric(server.url, 'cincy_graph_builds_total{how="main"}')).toBe(1);
    const onWorker = (await metric(server.url, 'cincy_graph_builds_total{how="worker"}')) - atStart;
    expect(onWorker).toBeGreaterThanOrEqual(1);
    expect(onWorker).toBeLessThan(n);
    // The export tarball is made by the worker too, and holds the writes.
    const tarball = Buffer.from(await (await fetch(`${server.url}/api/upgrades_info/graph-data`)).arrayBuffer());
    const file = join(s.work, 'state.tar.gz');
    writeFileSync(file, tarball);
    const read = await readGraphData(file);
    expect(read.errors).toEqual([]);
    expect(read.tree!.channels.filter((c) => c.name.startsWith('burst-'))).toHaveLength(n);
    expect(read.tree!.releases).toHaveLength(n + 2);
  });

  it('a restart on the tree its store holds builds the first graph on the worker, while the server is made', async () => {
    const s = setup();
    const first = await serve(s);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const again = await serve(s);
    expect(await metric(again.url, 'cincy_graph_builds_total{how="worker"}')).toBe(1);
    expect(await metric(again.url, 'cincy_graph_builds_total{how="main"}')).toBe(0);
    // The tree, read meanwhile, is imported after the first graph is served: unchanged, nothing built again.
    await eventually(
      'the import after the first graph',
      async () => again.log(),
      (log) => log.includes('graph-data unchanged since the last import'),
    );
    expect(await metric(again.url, 'cincy_graph_builds_total{how="main"}')).toBe(0);
  });
});
