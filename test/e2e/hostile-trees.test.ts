// Hostile graph-data trees and tarballs given to `serve` (a process): on a store that holds a good graph it
// keeps serving it whatever goes wrong with the import at start, and leaves no temporary folder. The
// tarballs' refusals, read in this process, are in test/unit/sources/graphData.tarballs.test.ts.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES, MAX_TREE_BYTES } from '../../src/sources/treeLimits.js';
import { serveCli, useCleanup } from '../support/cli.js';
import type { TarEntry } from '../support/tar.js';
import { treeEntries, writeTarball, writeTree } from '../support/trees.js';

const cleanup = useCleanup();
const INJECT = pathToFileURL(join(import.meta.dirname, '..', 'support', 'importFailure.mjs')).href;

/** A fresh folder for os.tmpdir() of the code under test (it reads TMPDIR), to see what it leaves there. */
function privateTmp(): string {
  const tmp = join(cleanup.dir(), 'tmp');
  mkdirSync(tmp);
  return tmp;
}

/** Files of zeros (a few KiB compressed) that together unpack past the limit of a tree. */
function* pastTreeBytes(): Generator<TarEntry> {
  yield* treeEntries('graph-data');
  const zeros = Buffer.alloc(MAX_FILE_BYTES);
  for (let i = 0; i <= MAX_TREE_BYTES / MAX_FILE_BYTES; i++) yield { name: `graph-data/extra/${i}`, data: zeros };
}

/** A store holding the good tree's graph, and that graph as `serve` answers it. */
async function goodStore(): Promise<{ db: string; graph: string }> {
  const db = join(cleanup.dir(), 'cincy.db');
  const served = await serveCli(['--graph-data', writeTree(cleanup.dir()), '--db', db], cleanup);
  const graph = await (await fetch(`${served.url}/graph?channel=stable-4.1`)).text();
  served.child.kill('SIGKILL');
  return { db, graph };
}

/** Starts `serve` on the store with `graphData`: it must serve the stored graph and leave no temporary folder; returns its log. */
async function servesStoredGraph(
  store: { db: string; graph: string },
  graphData: string,
  env: Record<string, string> = {},
): Promise<string> {
  const tmp = privateTmp();
  const served = await serveCli(['--graph-data', graphData, '--db', store.db], cleanup, { TMPDIR: tmp, ...env });
  expect(await (await fetch(`${served.url}/graph?channel=stable-4.1`)).text()).toBe(store.graph);
  const ready = (await (await fetch(`${served.url}/readyz`)).json()) as { lastImportFailure?: unknown };
  expect(ready.lastImportFailure).toBeDefined();
  served.child.kill('SIGKILL');
  expect(readdirSync(tmp)).toEqual([]);
  return served.log();
}

describe('reliability finding 5: hostile trees', () => {
  it('serve on a store with a good graph keeps serving it when the tree holds an 8 MiB file (an alias bomb)', async () => {
    const store = await goodStore();
    // A rule with an 8 MiB query, named 99 times: written out, about 800 MiB.
    const rule = `- &r {type: PromQL, promql: {promql: "${'x'.repeat(8 * 1024 * 1024 - 1024)}"}}\n`;
    const tree = writeTree(cleanup.dir(), {
      'blocked-edges/4.1.1-Bomb.yaml': `to: 4.1.1\nfrom: 4[.]1[.]0\nurl: https://x.example/1\nname: Bomb\nmessage: m\nmatchingRules:\n${rule}${'- *r\n'.repeat(99)}`,
    });
    const log = await servesStoredGraph(store, tree);
    expect(log).toContain(`graph-data ${tree} rejected; serving what the store has`);
    expect(log).toMatch(/blocked-edges\/4\.1\.1-Bomb\.yaml: -: file is \d+ bytes, more than the limit of 1048576/);
  }, 120_000);

  it('serve keeps serving the stored graph when reading or storing the tree throws, and logs why naming the file', async () => {
    const store = await goodStore();
    const tree = writeTree(cleanup.dir(), { 'channels/stable-4.1.yaml': 'name: stable-4.1\nversions:\n- 4.1.1\n' });
    const inject = (where: string): Record<string, string> => ({
      NODE_OPTIONS: `--import ${INJECT}`,
      CINCY_TEST_THROW_IN: where,
    });
    expect(await servesStoredGraph(store, tree, inject('reader'))).toContain(
      'releases/amd64/4.1.1.json: -: cannot be read: injected failure in the reader',
    );
    expect(await servesStoredGraph(store, tree, inject('store'))).toContain(
      `${tree}: -: the import failed: injected failure in the store`,
    );
  }, 120_000);
});

describe('reliability finding 6: hostile tarballs', () => {
  it('serve on a store with a good graph keeps serving it on every start with a refused tarball, leaving no temporary folder', async () => {
    const store = await goodStore();
    const dir = cleanup.dir();
    const big = writeTarball(join(dir, 'big.tar.gz'), pastTreeBytes());
    // Many files, then a link: refused at the link, well into the archive.
    const linked = writeTarball(join(dir, 'linked.tar.gz'), [
      ...treeEntries('graph-data'),
      ...Array.from({ length: 20_000 }, (_, i) => ({ name: `graph-data/extra/${i}`, data: 'x' })),
      { name: 'graph-data/channels/evil.yaml', type: 'symlink' as const, linkname: '/etc/passwd' },
      ...Array.from({ length: 20_000 }, (_, i) => ({ name: `graph-data/more/${i}`, data: 'x' })),
    ]);
    for (const file of [big, linked, big, linked, big, linked]) {
      const log = await servesStoredGraph(store, file);
      expect(log).toContain(`graph-data ${file} rejected; serving what the store has`);
    }
  }, 180_000);
});
