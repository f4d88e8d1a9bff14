// The poll recorder and the fleet's records on a real store: updates seen within a batch and across
// batches, a batch the store could not take kept for the next flush, and replicas' batches merged by time.
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { PollRecorder, DEFAULT_FLEET_SETTINGS } from '../../../../src/app/fleet/pollRecorder.js';
import { StoreUnavailable } from '../../../../src/store/sql.js';
import { Store } from '../../../../src/store/store.js';
import { UNSERVED, UPDATES_PER_CLUSTER } from '../../../../src/schemas/fleet.js';
import { SERVED_4_16 } from '../../../support/servedNames.js';

const ID = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
const MIN = 60_000;

describe('the poll recorder', () => {
  let store: Store | undefined;
  afterEach(async () => store?.close());

  const setup = async (): Promise<{
    store: Store;
    clock: ManualClock;
    recorder: PollRecorder;
    failNext: () => void;
  }> => {
    store = await Store.open(':memory:');
    const clock = new ManualClock();
    let fail = false;
    // The store, but a write fails when told to, as a database that is away fails it.
    const flaky = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'write' && fail) {
          fail = false;
          return () => Promise.reject(new StoreUnavailable('the database is away'));
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const recorder = new PollRecorder(flaky, clock, DEFAULT_FLEET_SETTINGS);
    return { store, clock, recorder, failNext: () => (fail = true) };
  };
  const record = async (store: Store) => (await store.read((tx) => tx.fleet.clusters({}, 10)))[0]!;
  const history = (store: Store) => store.read((tx) => tx.fleet.historyOf(ID));

  it('sees updates within a batch and across batches, with the time between the two polls', async () => {
    const { store, clock, recorder } = await setup();
    const t0 = clock.now();
    recorder.record(ID, '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
    clock.advance(3 * MIN);
    recorder.record(ID, '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
    clock.advance(7 * MIN);
    recorder.record(ID, '4.16.2', 'stable-4.16', 'amd64', SERVED_4_16);
    await recorder.flush();
    clock.advance(60 * MIN);
    recorder.record(ID.toUpperCase(), '4.16.3', 'fast-4.16', 'amd64', SERVED_4_16);
    await recorder.flush();

    expect(await record(store)).toEqual({
      id: ID,
      channel: 'fast-4.16',
      arch: 'amd64',
      version: '4.16.3',
      firstSeen: t0,
      lastSeen: t0 + 70 * MIN,
      versionSince: t0 + 70 * MIN,
      polls: 4,
    });
    expect(await history(store)).toEqual([
      { from: '4.16.1', to: '4.16.2', lastAtFrom: t0 + 3 * MIN, firstAtTo: t0 + 10 * MIN },
      { from: '4.16.2', to: '4.16.3', lastAtFrom: t0 + 10 * MIN, firstAtTo: t0 + 70 * MIN },
    ]);
  });

  it('keeps a batch the store could not take, merged with the polls that came meanwhile', async () => {
    const { store, clock, recorder, failNext } = await setup();
    const t0 = clock.now();
    recorder.record(ID, '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
    recorder.record(undefined, undefined, 'stable-4.16', 'amd64', SERVED_4_16);
    failNext();
    expect(await recorder.flush()).toBeUndefined();
    expect(recorder.flushes.failed).toBe(1);
    clock.advance(5 * MIN);
    recorder.record(ID, '4.16.2', 'stable-4.16', 'amd64', SERVED_4_16);
    await recorder.flush();
    expect(await record(store)).toMatchObject({
      version: '4.16.2',
      firstSeen: t0,
      versionSince: t0 + 5 * MIN,
      polls: 2,
    });
    expect(await history(store)).toEqual([{ from: '4.16.1', to: '4.16.2', lastAtFrom: t0, firstAtTo: t0 + 5 * MIN }]);
    expect(await store.read((tx) => tx.fleet.counts())).toMatchObject({ noId: 1 });
  });

  it('lets an older batch of another replica add its polls without undoing a newer state', async () => {
    const { store, clock, recorder } = await setup();
    const t0 = clock.now();
    clock.advance(10 * MIN);
    recorder.record(ID, '4.16.2', 'stable-4.16', 'amd64', SERVED_4_16);
    await recorder.flush();
    // Another replica's batch, of polls made before, written after.
    await store.write((tx) =>
      tx.fleet.merge(
        [
          {
            id: ID,
            channel: 'stable-4.16',
            arch: 'amd64',
            firstVersion: '4.16.1',
            version: '4.16.1',
            firstSeen: t0,
            lastSeen: t0 + MIN,
            versionSince: t0,
            polls: 2,
            moves: [],
          },
        ],
        10,
      ),
    );
    expect(await record(store)).toMatchObject({ version: '4.16.2', firstSeen: t0, lastSeen: t0 + 10 * MIN, polls: 3 });
  });

  it('counts what it does not store: no id, a malformed id or version, a full batch', async () => {
    const { recorder } = await setup();
    const small = new PollRecorder(store!, new ManualClock(), { ...DEFAULT_FLEET_SETTINGS, maxPending: 1 });
    for (const r of [recorder, small]) {
      r.record('', '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
      r.record('cluster-1', '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
      r.record(ID, '4.16.1; DROP TABLE', 'stable-4.16', 'amd64', SERVED_4_16);
      r.record([ID, ID], '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
      r.record(ID, '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
      r.record(ID.replace('0f', 'ff'), '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
    }
    expect(recorder.counts).toEqual({ recorded: 2, noId: 1, malformed: 3, batchFull: 0 });
    expect(small.counts).toEqual({ recorded: 1, noId: 1, malformed: 3, batchFull: 1 });
    expect(small.pendingClusters).toBe(1);
  });

  it('records the names the graph does not serve as one, however many and however long they are', async () => {
    const { store, clock, recorder } = await setup();
    const junk = (i: number, length: number): string => `${i}-`.padEnd(length, 'x');
    for (let i = 0; i < 3000; i++) {
      const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      recorder.record(id, junk(i, 60), junk(i, 15_000), junk(i, 4000), SERVED_4_16);
      clock.advance(1);
    }
    await recorder.flush();
    const groups = await store.read((tx) => tx.fleet.groups(0));
    expect(groups).toEqual([{ channel: UNSERVED, arch: UNSERVED, version: UNSERVED, clusters: 3000, stale: 0 }]);
    // What the records hold is as long as the names the graph serves, not as the names that came.
    const stored = await store.read((tx) =>
      tx.sql.get<{ n: number }>(
        'SELECT SUM(LENGTH(channel) + LENGTH(arch) + LENGTH(version)) AS n FROM fleet_clusters',
      ),
    );
    expect(Number(stored!.n)).toBe(3000 * 3 * UNSERVED.length);
  });

  it('keeps an id flipping between versions to a few moves a batch, and takes no change after a flip as an update', async () => {
    const { store, clock, recorder } = await setup();
    for (let batch = 0; batch < 30; batch++) {
      for (let i = 0; i < 100; i++) {
        recorder.record(ID, i % 2 ? '4.16.2' : '4.16.1', 'stable-4.16', 'amd64', SERVED_4_16);
        clock.advance(10);
      }
      expect(recorder.pendingClusters).toBe(1);
      await recorder.flush();
    }
    const history = await store.read((tx) => tx.fleet.historyOf(ID));
    expect(history.length).toBeLessThanOrEqual(UPDATES_PER_CLUSTER);
    // The first change up may be an update; every change after it started from a flip: suspicious, kept as seen.
    expect(history.slice(1).every((h) => h.suspicious)).toBe(true);
    const stats = await store.read((tx) => tx.fleetReports.startedCounts(0));
    expect(stats.reduce((n, e) => n + e.started, 0)).toBeLessThanOrEqual(1);
    // Each batch of 99 flips keeps two moves (one of them a downgrade) and counts the 97 others.
    expect((await store.read((tx) => tx.fleet.counts())).implausibleMoves).toBeGreaterThanOrEqual(30 * 97);
  });
});
