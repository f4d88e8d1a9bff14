// The `cincy` command line, run as a shell runs it.
import { spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { channelView } from '../../src/graph/view.js';
import { Store } from '../../src/store/store.js';
import { CONFORMANCE_DIR, conformanceAvailable } from '../support/conformance.js';
import { cincy, serveCli, useCleanup } from '../support/cli.js';
import { writeTree } from '../support/trees.js';

const cleanup = useCleanup();
const dir = (): string => cleanup.dir();
const serve = async (args: string[]): Promise<string> => (await serveCli(args, cleanup)).url;

describe('cincy CLI', () => {
  it('documents every command and the settings of serve', () => {
    const help = cincy(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['serve', 'import', 'validate', 'export', 'openapi']) expect(help.stdout).toContain(c);
    const serveHelp = cincy(['serve', '--help']).stdout.replace(/\s+/g, ' ');
    for (const f of [
      '--graph-data',
      '--db',
      '--host',
      '--port',
      'CINCY_PORT',
      '--demo',
      './data/demo.db',
      './data/cincy.db',
      '127.0.0.1',
      '8080',
    ])
      expect(serveHelp).toContain(f);
  });

  it('validate: exit 0 with a summary for a good tree, exit 1 with "file: field: message" lines for a bad one', () => {
    const good = cincy(['validate', writeTree(dir())]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/valid \(schema 1\.1\.0\): 2 releases, 1 channels, 1 blocked edges/);
    const bad = cincy([
      'validate',
      writeTree(dir(), {
        'channels/x.yaml': 'name: y\nversions: []\n',
        'blocked-edges/b.yaml': 'to: 4.1.1\nfrom: .*\nurl: nope\n',
      }),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("channels/x.yaml: name: 'y' differs from the file name 'x'");
    expect(bad.stderr).toContain('blocked-edges/b.yaml: name: missing:');
    expect(bad.stderr).toContain("blocked-edges/b.yaml: url: 'nope' is not a URI");
  });

  it('import: prints a summary; a rejected tree leaves the store unchanged', async () => {
    const db = join(dir(), 'c.db');
    const ok = cincy(['import', '--graph-data', writeTree(dir()), '--db', db]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/releases: +2 added/);
    expect(ok.stdout).toMatch(/1 risks, 0 hard blocks/);
    const bad = cincy(['import', '--graph-data', writeTree(dir(), { version: '3.0.0\n' }), '--db', db]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('the store is unchanged');
    const s = await Store.open(db);
    expect(await s.read((tx) => tx.releases.count())).toBe(2);
    await s.close();
  });

  it('serve: rejects a bad flag naming it, and refuses an invalid tree with an empty store', () => {
    const port = cincy(['serve', '--port', 'http'], {});
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("--port (CINCY_PORT): Expected integer, got 'http'");
    const env = cincy(['serve', '--db', ':memory:'], { CINCY_PORT: '99999' });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('--port (CINCY_PORT)');
    // serve listens before it reads the tree: on any free port, not on the default 8080 (which may be taken).
    const bad = cincy([
      'serve',
      '--port',
      '0',
      '--db',
      ':memory:',
      '--graph-data',
      writeTree(dir(), { version: '3.0\n' }),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('version: -: schema major version 3 is not supported');
    // A --db in a folder that does not exist is refused, and the folder is not made.
    const nowhere = join(dir(), 'no', 'such');
    const db = cincy(['serve', '--port', '0', '--db', join(nowhere, 'c.db')]);
    expect(db.code).toBe(1);
    expect(db.stderr).toContain(`--db (CINCY_DB): the folder ${nowhere} does not exist: create it first`);
    expect(existsSync(nowhere)).toBe(false);
  });

  it('serve --log-format text writes lines a person reads: time, level, message, key=value', async () => {
    const served = await serveCli(['--db', ':memory:', '--demo', '--log-format', 'text'], cleanup, {}, 'listening');
    const ready = async (): Promise<boolean> => (await fetch(`${served.url}/readyz`)).status === 200;
    for (let i = 0; i < 100 && !(await ready()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(served.log()).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}Server listening at http:\/\/127\.0\.0\.1:\d+$/m);
    expect(served.log()).toMatch(/^\S+ INFO {2}graph built releases=\d+ channels=\d+ buildSeconds=/m);
    expect(served.log()).not.toContain('{"level"');
  });

  it('serve on a port another process holds says which, and what to do, in one line', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    cleanup.add(() => new Promise((r) => taken.close(r)));
    const port = (taken.address() as AddressInfo).port;
    const busy = cincy(['serve', '--db', ':memory:', '--port', String(port)]);
    expect(busy.code).toBe(1);
    expect(busy.stderr.trim()).toBe(
      `cincy: cannot serve: 127.0.0.1:${port} is in use by another process: stop it, or give another --port (0 picks a free one)`,
    );
  });

  it('serve --demo serves the bundled tree from ./data/demo.db of the folder it is run in, and says it is the demo', async () => {
    const where = dir();
    const served = await serveCli(['--demo'], cleanup, {}, 'built', where);
    const ready = (await (await fetch(`${served.url}/readyz`)).json()) as {
      demo?: boolean;
      graph: { releases: number };
    };
    expect(ready.demo).toBe(true);
    expect(ready.graph.releases).toBeGreaterThan(100);
    const res = await fetch(`${served.url}/graph?channel=stable-4.16`, { headers: { accept: 'application/json' } });
    expect(((await res.json()) as { nodes: unknown[] }).nodes.length).toBeGreaterThan(10);
    expect(existsSync(join(where, 'data', 'demo.db'))).toBe(true);
    expect(served.log()).toMatch(/serving the bundled DEMO data .* for real data, serve --graph-data DIR/);
  });

  it('demo and real data never share a store: each refuses the other in one line; no source imports nothing, except into memory', async () => {
    const demoDb = join(dir(), 'demo.db');
    const realDb = join(dir(), 'real.db');
    const demo = await serveCli(['--demo', '--db', demoDb], cleanup);
    demo.child.kill('SIGTERM');
    await new Promise((r) => demo.child.once('exit', r));
    const tree = writeTree(dir());
    for (const refused of [
      cincy(['serve', '--port', '0', '--db', demoDb, '--graph-data', tree]),
      cincy(['import', '--db', demoDb, '--graph-data', tree]),
    ]) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `the store ${demoDb} holds the bundled demo data (invented releases): give real data a store of its own`,
      );
    }
    expect(cincy(['import', '--db', realDb, '--graph-data', tree]).code).toBe(0);
    const demoOnReal = cincy(['serve', '--port', '0', '--demo', '--db', realDb]);
    expect(demoOnReal.code).toBe(1);
    expect(demoOnReal.stderr).toContain(`the store ${realDb} holds real data, not the demo`);
    const mixed = cincy(['serve', '--port', '0', '--demo', '--graph-data', tree]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--demo (CINCY_DEMO) serves the bundled demo alone: leave out --graph-data');

    // No source at all: nothing bundled is imported; the empty store is said to be empty.
    const empty = await serveCli(['--db', join(dir(), 'empty.db')], cleanup);
    const ready = (await (await fetch(`${empty.url}/readyz`)).json()) as {
      demo?: boolean;
      graph: { releases: number };
    };
    expect(ready.graph.releases).toBe(0);
    expect(ready.demo).toBeUndefined();
    expect(empty.log()).toMatch(/the store is empty and no source is given/);

    // An in-memory store with no source holds nothing real and keeps nothing: it serves the demo,
    // marked so, unless CINCY_DEMO=false asks for it empty.
    const memory = await serveCli(['--db', ':memory:'], cleanup, {}, 'built');
    const memoryReady = (await (await fetch(`${memory.url}/readyz`)).json()) as typeof ready;
    expect(memoryReady.demo).toBe(true);
    expect(memoryReady.graph.releases).toBeGreaterThan(100);
    expect(memory.log()).toMatch(/serving the bundled DEMO data/);
    const emptyMemory = await serveCli(['--db', ':memory:'], cleanup, { CINCY_DEMO: 'false' });
    const emptyReady = (await (await fetch(`${emptyMemory.url}/readyz`)).json()) as typeof ready;
    expect(emptyReady.graph.releases).toBe(0);
    expect(emptyReady.demo).toBeUndefined();
  });

  it.runIf(conformanceAvailable())(
    'export after import reproduces the meaning of the real tree, and serves from a .tar.gz',
    async () => {
      const source = join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data');
      const db1 = join(dir(), 'a.db');
      const db2 = join(dir(), 'b.db');
      const out = join(dir(), 'exported');
      expect(cincy(['import', '--graph-data', source, '--db', db1]).code).toBe(0);
      const exported = cincy(['export', '--db', db1, out]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(existsSync(join(out, 'releases', 'amd64', '4.16.1.json'))).toBe(true);
      expect(readFileSync(join(out, 'version'), 'utf8')).toBe('1.1.0\n');
      expect(cincy(['validate', out]).code).toBe(0);
      expect(cincy(['import', '--graph-data', out, '--db', db2]).code).toBe(0);
      const [a, b] = await Promise.all(
        [db1, db2].map(async (p) => {
          const s = await Store.open(p);
          const g = buildGraph(await s.input());
          await s.close();
          return g;
        }),
      );
      const channels = [...new Set(a!.nodes.flatMap((n) => n.channels))].sort();
      expect(channels.length).toBe(55);
      for (const c of channels)
        expect(JSON.stringify(channelView(b!, c, 'amd64')), c).toBe(JSON.stringify(channelView(a!, c, 'amd64')));
      expect(cincy(['export', '--db', db1, out]).code).toBe(1); // not empty: refuses without --force

      const tarball = join(dir(), 'gd.tar.gz');
      expect(spawnSync('tar', ['-czf', tarball, '-C', out, '.']).status).toBe(0);
      const url = await serve(['--db', ':memory:', '--graph-data', tarball]);
      const res = await fetch(`${url}/graph?channel=stable-4.16`, { headers: { accept: 'application/json' } });
      expect(JSON.parse(await res.text())).toEqual(channelView(a!, 'stable-4.16', 'amd64'));
    },
  );
});
