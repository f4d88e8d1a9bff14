// The fleet query worker: answers the fleet API's store reads (fleetQueries.ts) over a read-only
// connection of its own to a SQLite file, so that grouping hundreds of thousands of clusters holds up
// this thread only, never the one that answers requests. One JobAnswer (jobWorker.ts) per query.
import { parentPort, workerData } from 'node:worker_threads';
import { Store } from '../../store/store.js';
import { answerOf } from '../jobWorker.js';
import { storeQueries, type FleetQueryJob } from './fleetQueries.js';

const { location } = workerData as { location: string };
// A read blocks this thread only: it may wait for a busy SQLite file.
const queries = storeQueries(Store.at(location, { readonly: true, sqlite: { lockAttemptMs: 15_000 } }));

parentPort!.on('message', (job: FleetQueryJob & { id: number }) => {
  const run = queries[job.query] as (...args: unknown[]) => Promise<unknown>;
  void answerOf(job.id, () => run(...job.args)).then((a) => parentPort!.postMessage(a));
});
