// The fleet's cost per cluster, in one process of its own (run with --expose-gc):
//   node --expose-gc scripts/bench/fleetScale.mjs DIR|postgres://… CLUSTERS
// records CLUSTERS polls of distinct clusters into cincy's poll recorder (from dist/), on a SQLite file
// in DIR or on a PostgreSQL database, and prints one JSON line: the heap the batch holds, the first
// flush (every cluster new) and a second one (every cluster polled again at another version, so each
// has a version move) in seconds, and the storage after each, in bytes (the SQLite file with its WAL,
// or the fleet tables with their indexes). Clusters per write and the batch cap are the recorder's own.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [where, clustersArg] = process.argv.slice(2);
const clusters = Number(clustersArg);
if (!where || !Number.isInteger(clusters) || clusters <= 0)
  throw new Error('usage: fleetScale.mjs DIR|postgres://… CLUSTERS');
const onPostgres = where.startsWith('postgres://');
if (typeof globalThis.gc !== 'function') throw new Error('fleetScale.mjs: run with node --expose-gc');

const dist = join(import.meta.dirname, '..', '..', 'dist');
const { Store } = await import(pathToFileURL(join(dist, 'store', 'store.js')).href);
const { PollRecorder, DEFAULT_FLEET_SETTINGS } = await import(
  pathToFileURL(join(dist, 'app', 'fleet', 'pollRecorder.js')).href
);
const { systemClock } = await import(pathToFileURL(join(dist, 'clock.js')).href);

const file = onPostgres ? where : join(where, 'fleet.db');
const store = await Store.open(file, { clock: systemClock });
// The batch holds every cluster at once here: the serve default caps it at 200,000 per flush interval.
const recorder = new PollRecorder(store, systemClock, {
  ...DEFAULT_FLEET_SETTINGS,
  maxPending: Math.max(clusters, DEFAULT_FLEET_SETTINGS.maxPending),
});

const hex = (n, width) => n.toString(16).padStart(width, '0');
const idOf = (i) => `${hex(i, 8)}-0000-4000-8000-${hex(i, 12)}`;
const FLEET_TABLES = ['fleet_clusters', 'fleet_updates'];
async function sizeOf() {
  if (onPostgres)
    return store.read(async (tx) => {
      let bytes = 0;
      for (const t of FLEET_TABLES) bytes += Number((await tx.sql.get(`SELECT pg_total_relation_size('${t}') AS n`)).n);
      return bytes;
    });
  return ['', '-wal'].reduce((sum, suffix) => {
    try {
      return sum + statSync(file + suffix).size;
    } catch {
      return sum;
    }
  }, 0);
}

/** Records one poll of every cluster at `version`, and returns the heap the batch took. */
function recordAll(version) {
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < clusters; i++) recorder.take(idOf(i), version, 'stable-4.16', 'amd64', Date.now());
  globalThis.gc();
  return process.memoryUsage().heapUsed - before;
}

async function timedFlush() {
  const t0 = performance.now();
  const outcome = await recorder.flush();
  return { seconds: (performance.now() - t0) / 1000, outcome };
}

const batchBytes = recordAll('4.16.1');
const first = await timedFlush();
const afterFirst = await sizeOf();
recordAll('4.16.2');
const second = await timedFlush();
const afterSecond = await sizeOf();
await store.close();
console.log(
  JSON.stringify({
    engine: onPostgres ? 'postgres' : 'sqlite',
    clusters,
    batchBytes,
    firstFlushSeconds: first.seconds,
    firstWritten: first.outcome?.written,
    secondFlushSeconds: second.seconds,
    secondUpdates: second.outcome?.updates,
    dbBytesAfterFirst: afterFirst,
    dbBytesAfterSecond: afterSecond,
  }),
);
