// The tree serve is given, read when it is needed first (src/sources/treeAtStart.ts, src/store/lastImport.ts):
// at once for a tree the store has not imported as it lies now, after the first graph on a restart on
// the tree the store imported last; the store file only peeked at, never made.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { GraphService } from '../../../src/app/graphService.js';
import { prepareService } from '../../../src/app/start/service.js';
import { treeAtStart } from '../../../src/sources/treeAtStart.js';
import { treeFingerprint } from '../../../src/sources/treeFingerprint.js';
import { lastImportIn } from '../../../src/store/lastImport.js';
import { useCleanup } from '../../support/cleanup.js';
import { quietLog } from '../../support/server.js';
import { startService } from '../../support/service.js';
import { writeTree } from '../../support/trees.js';

const steps = useCleanup();

/** A store file that imported `graphData` as serve does (its fingerprint recorded); closed again. */
async function importedStore(graphData: string): Promise<string> {
  const db = join(steps.dir(), 'cincy.db');
  const started = await startService({ graphData, db, log: quietLog });
  if (!started.ok) throw new Error(started.problems.join('\n'));
  await started.firstRead;
  await started.close();
  return db;
}

describe('the tree given at start', () => {
  it('peeks at the last import of a store file, and at nothing else', async () => {
    const graphData = writeTree(steps.dir());
    const db = await importedStore(graphData);
    expect(lastImportIn(db)).toEqual({ source: graphData, fingerprint: treeFingerprint(graphData) });
    const missing = join(steps.dir(), 'none.db');
    expect(lastImportIn(missing)).toBeUndefined();
    expect(existsSync(missing)).toBe(false);
    const junk = join(steps.dir(), 'junk.db');
    writeFileSync(junk, 'not a database\n'.repeat(100));
    expect(lastImportIn(junk)).toBeUndefined();
  });

  it('reads at once a tree the store does not hold as it lies, and later the one it does', async () => {
    const graphData = writeTree(steps.dir());
    const db = await importedStore(graphData);
    const signal = new AbortController().signal;
    // The tree the store imported last, unchanged: its fingerprint given, its read not begun.
    const same = treeAtStart(graphData, db, signal);
    expect(same.fingerprint).toBe(treeFingerprint(graphData));
    expect(same.importsFirst).toBe(false);
    // No store file (memory, PostgreSQL): read at once, no fingerprint made, whether it is imported unknown.
    // A changed tree, or a SQLite file not made yet: read at once and imported first.
    const unpeeked = treeAtStart(graphData, undefined, signal);
    expect(unpeeked.fingerprint).toBeUndefined();
    expect(unpeeked.importsFirst).toBe(false);
    expect(treeAtStart(graphData, join(steps.dir(), 'new.db'), signal).importsFirst).toBe(true);
    writeTree(graphData, { 'channels/stable-4.1.yaml': 'name: stable-4.1\nversions: [4.1.0]\n' });
    const changed = treeAtStart(graphData, db, signal);
    expect(changed.fingerprint).toBe(treeFingerprint(graphData));
    expect(changed.fingerprint).not.toBe(lastImportIn(db)?.fingerprint);
    expect(changed.importsFirst).toBe(true);
    // One read however often it is asked for, and a whole tree.
    expect(same.read()).toBe(same.read());
    expect((await same.read()).tree?.channels.length).toBeGreaterThan(0);
  });

  it('on a restart on the same tree, is read only once the first graph is served', async () => {
    const graphData = writeTree(steps.dir());
    const db = await importedStore(graphData);
    const tree = treeAtStart(graphData, db, new AbortController().signal);
    const servedWhenRead: boolean[] = [];
    const at: { service?: GraphService } = {};
    const treeRead = { ...tree, read: () => (servedWhenRead.push(at.service?.current !== undefined), tree.read()) };
    const prepared = prepareService({ graphData, db, log: quietLog, treeRead });
    if (!prepared.ok) throw new Error(prepared.problems.join('\n'));
    steps.add(() => prepared.close());
    at.service = prepared.service;
    const outcome = await prepared.start();
    if (!outcome.ok) throw new Error(outcome.problems.join('\n'));
    await outcome.firstRead;
    expect(servedWhenRead).toEqual([true]);
    expect(prepared.service.lastImportFailure).toBeUndefined();
  });

  it('starts the build worker before the first graph on a restart, and only after it when the tree is imported first', async () => {
    const graphData = writeTree(steps.dir());
    // Whether a graph was served at each start of the build worker (service.warm), which then starts as ever.
    const servedAtWarm: boolean[] = [];
    const realWarm = GraphService.prototype.warm;
    const warm = vi.spyOn(GraphService.prototype, 'warm').mockImplementation(function (this: GraphService) {
      servedAtWarm.push(this.current !== undefined);
      realWarm.call(this);
    });
    steps.add(() => warm.mockRestore());
    const startOn = async (db: string) => {
      servedAtWarm.length = 0;
      const treeRead = treeAtStart(graphData, db, new AbortController().signal);
      const prepared = prepareService({ graphData, db, log: quietLog, treeRead });
      if (!prepared.ok) throw new Error(prepared.problems.join('\n'));
      steps.add(() => prepared.close());
      const outcome = await prepared.start();
      if (!outcome.ok) throw new Error(outcome.problems.join('\n'));
      await outcome.firstRead;
      const builds = { ...prepared.service.builds };
      await prepared.close();
      return { servedAtWarm: [...servedAtWarm], builds };
    };
    const db = join(steps.dir(), 'cincy.db');
    // A new store file: the tree imported, the first graph built on this thread, the worker started after it.
    expect(await startOn(db)).toEqual({ servedAtWarm: [true], builds: { main: 1, worker: 0, channels: 0 } });
    // A restart on the same tree: the worker started at once builds the stored graph on the other core.
    expect(await startOn(db)).toEqual({ servedAtWarm: [false, true], builds: { main: 0, worker: 1, channels: 0 } });
  });
});
