// Poll recording on a worker thread, over its own connection to a SQLite file: polls stored at the
// serving thread's times, counts reported back, the backlog bounded, a worker that stops started
// again; and the serving thread's connection not rebuilding for the worker's writes (the served
// generation), while it still notices a served write by another connection.
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FLEET_SETTINGS } from '../../../../src/app/fleet/pollRecorder.js';
import { WorkerPollRecorder } from '../../../../src/app/fleet/workerPollRecorder.js';
import { ManualClock } from '@cincy/simulator/clock/manual';
import type { FlushOutcome } from '../../../../src/store/fleet.js';
import { DATA_VERSION_INTERVAL_MS } from '../../../../src/store/sqlite.js';
import { Store } from '../../../../src/store/store.js';
import { useCleanup } from '../../../support/cleanup.js';
import { SERVED_4_16 } from '../../../support/servedNames.js';

const cleanup = useCleanup();
const MIN = 60_000;
const idOf = (i: number): string =>
  `${i.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;

async function setup(settings = DEFAULT_FLEET_SETTINGS) {
  const file = join(cleanup.dir(), 'cincy.db');
  const store = await Store.open(file);
  cleanup.add(() => store.close());
  const clock = new ManualClock();
  const warnings: string[] = [];
  const recorder = new WorkerPollRecorder(file, clock, settings, { warn: (_o, msg) => warnings.push(msg) }, undefined);
  cleanup.add(() => recorder.close());
  recorder.start();
  return { file, store, clock, recorder, warnings };
}

describe('poll recording on a worker thread', () => {
  it('stores the polls at the times the serving thread answered them, and reports its counts and flushes', async () => {
    const { store, clock, recorder } = await setup();
    const flushed: FlushOutcome[] = [];
    recorder.onFlushed = (o) => flushed.push(o);
    const t0 = clock.now();
    recorder.record(idOf(1), '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
    recorder.record(idOf(2), '4.16.1', 'stable-4.16', 'arm64', SERVED_4_16);
    clock.advance(10 * MIN);
    recorder.record(idOf(1).toUpperCase(), '4.16.2', 'stable-4.16', 'amd64', SERVED_4_16);
    recorder.record('not-a-cluster-id', '4.16.2', 'stable-4.16', 'amd64', SERVED_4_16);
    recorder.record(undefined, undefined, 'stable-4.16', 'amd64', SERVED_4_16);

    const outcome = await recorder.flush();
    expect(outcome).toMatchObject({ written: 2, added: 2, updates: 1 });
    expect(flushed).toEqual([outcome]);
    expect(recorder.counts).toEqual({ recorded: 3, noId: 1, malformed: 1, batchFull: 0 });
    expect(recorder.flushes.lastClusters).toBe(2);
    expect(recorder.pendingClusters).toBe(0);

    const stored = await store.read((tx) => tx.fleet.clusters({}, 10));
    expect(stored.map((c) => [c.id, c.arch, c.version, c.firstSeen, c.lastSeen])).toEqual([
      [idOf(1), 'amd64', '4.16.2', t0, t0 + 10 * MIN],
      [idOf(2), 'arm64', '4.16.1', t0, t0],
    ]);
    expect(await store.read((tx) => tx.fleet.historyOf(idOf(1)))).toEqual([
      expect.objectContaining({ from: '4.16.1', to: '4.16.2', lastAtFrom: t0, firstAtTo: t0 + 10 * MIN }),
    ]);
    expect(await store.read((tx) => tx.fleet.counts())).toMatchObject({ noId: 1, malformed: 1 });
  });

  it('counts the polls past its backlog as batch full, and keeps none of them', async () => {
    const { store, recorder } = await setup({ ...DEFAULT_FLEET_SETTINGS, maxPending: 10 });
    for (let i = 0; i < 25; i++) recorder.record(idOf(i), '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
    expect(recorder.counts.batchFull).toBe(15);
    await recorder.flush();
    expect(recorder.counts).toMatchObject({ recorded: 10, batchFull: 15 });
    expect((await store.read((tx) => tx.fleet.clusters({}, 100))).length).toBe(10);
    expect(await store.read((tx) => tx.fleet.counts())).toMatchObject({ batchFull: 15 });
  });

  it('starts a worker again after one stopped, saying so', async () => {
    const { store, recorder, warnings } = await setup();
    recorder.record(idOf(1), '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
    await recorder.flush();
    await (recorder as unknown as { worker: Worker }).worker.terminate();
    expect(warnings.some((w) => w.includes('the poll worker stopped'))).toBe(true);
    recorder.record(idOf(2), '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
    await recorder.flush();
    expect((await store.read((tx) => tx.fleet.clusters({}, 10))).map((c) => c.id)).toEqual([idOf(1), idOf(2)]);
    // The counts go on from the first worker's: a counter in /metrics never goes back.
    expect(recorder.counts.recorded).toBe(2);
    expect(recorder.flushes.ok).toBeGreaterThanOrEqual(2);
  });

  it("leaves the serving connection's watch quiet for the worker's writes, and tells it of a served write by another connection", async () => {
    const { file, store, recorder } = await setup();
    let changes = 0;
    cleanup.add(store.watch({ changed: () => (changes += 1), health: () => {} }));
    const settle = () => new Promise((r) => setTimeout(r, 3 * DATA_VERSION_INTERVAL_MS));

    recorder.record(idOf(1), '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
    expect(await recorder.flush()).toMatchObject({ written: 1 });
    await settle();
    expect(changes).toBe(0);

    const other = Store.at(file);
    cleanup.add(() => other.close());
    await other.write((tx) => tx.fleet.addCounts({ noId: 1 }), { unserved: true });
    await settle();
    expect(changes).toBe(0);
    await other.write((tx) => tx.fleet.addCounts({ noId: 1 }));
    await settle();
    expect(changes).toBe(1);
  });
});
