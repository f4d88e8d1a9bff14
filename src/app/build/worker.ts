// The build worker: reads the store over a read-only connection of its own (a SQLite file, or a pool of
// one to PostgreSQL) and does the expensive reads (a graph build, the export tarball) off the main
// thread, which keeps serving. Jobs in (jobs.ts), one JobAnswer out each (jobWorker.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { exportTarball } from '../../sources/export.js';
import { Store } from '../../store/store.js';
import { answerOf } from '../jobWorker.js';
import { readAndBuild } from './readAndBuild.js';
import type { WorkerJob } from './jobs.js';

const { location } = workerData as { location: string };
// A read blocks this thread only: it may wait long for a busy SQLite file.
const store = Store.at(location, { readonly: true, sqlite: { lockAttemptMs: 15_000 } });

parentPort!.on('message', (job: WorkerJob & { id: number }) => {
  if (job.job === 'build') {
    void answerOf(job.id, () => readAndBuild(store, job.vouched && new Set(job.vouched), job.now)).then((a) =>
      parentPort!.postMessage(a),
    );
    return;
  }
  void answerOf(job.id, async () => exportTarball(await store.storedTree())).then((a) =>
    parentPort!.postMessage(a, a.ok ? [a.value.bytes.buffer as ArrayBuffer] : []),
  );
});
