// A bad tree never stops serving (the service as serve starts it, src/app/start/service.ts): an invalid
// tree and an empty store refuse to start, listing every problem; a stored graph keeps being served when
// the tree turns invalid, and the last good snapshot when a rebuild fails. The store contract is in
// test/service/store/store.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startService } from '../../../support/service.js';
import { quietLog, startServer } from '../../../support/server.js';
import { useCleanup } from '../../../support/cleanup.js';
import { writeTree } from '../../../support/trees.js';

const steps = useCleanup();
const cleanup = { push: (f: () => unknown): void => steps.add(f) };
const dir = (): string => steps.dir();

describe('serving through a bad tree', () => {
  it('refuses to start with an invalid tree and an empty store, listing every problem', async () => {
    const graphData = writeTree(dir(), { version: '3.0.0\n', 'channels/x.yaml': 'name: y\nversions: []\n' });
    const r = await startService({ graphData, db: ':memory:', log: quietLog });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toContain('version: -: schema major version 3 is not supported (this server reads 1.x and 2.x)');
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
    await server.store.write((tx) => tx.sql.run("UPDATE releases SET metadata = 'not json'"));
    expect(await server.service.rebuild()).toBe(false);
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
