// The build worker: reads the store over a read-only connection of its own (a SQLite file, or a pool of
// one to PostgreSQL) and does the expensive reads (a graph build, the export tarball) off the main
// thread, which keeps serving. Messages in: {id, job: 'build', vouched?} or {id, job: 'export'};
// out: {id, ok, value | error}.
import { parentPort, workerData } from 'node:worker_threads';
import { exportTarball } from '../../sources/export.js';
import { StoreUnavailable } from '../../store/sql.js';
import { Store } from '../../store/store.js';
import { readAndBuild } from './readAndBuild.js';
import type { WorkerJob, WorkerAnswer } from './jobs.js';

const { location } = workerData as { location: string };
// A read blocks this thread only: it may wait long for a busy SQLite file.
const store = Store.at(location, { readonly: true, sqlite: { lockAttemptMs: 15_000 } });

parentPort!.on('message', (job: WorkerJob) => {
  void answer(job).then((a) => {
    const transfer = a.ok && a.job === 'export' ? [a.value.bytes.buffer as ArrayBuffer] : [];
    parentPort!.postMessage(a, transfer);
  });
});

async function answer(job: WorkerJob): Promise<WorkerAnswer> {
  try {
    if (job.job === 'build') {
      const parts = await readAndBuild(store, job.vouched && new Set(job.vouched));
      return { id: job.id, ok: true, job: 'build', value: parts };
    }
    return { id: job.id, ok: true, job: 'export', value: await exportTarball(await store.storedTree()) };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return { id: job.id, ok: false, error, unavailable: err instanceof StoreUnavailable };
  }
}
