// The build worker: reads the database file over a read-only connection of its own and does the
// expensive reads (a graph build, the export tarball) off the main thread, which keeps serving.
// Messages in: {id, job: 'build', vouched?} or {id, job: 'export'}; out: {id, ok, value | error}.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { exportTarball } from '../../sources/export.js';
import { Store } from '../../store/store.js';
import { readAndBuild } from './readAndBuild.js';
import type { WorkerJob, WorkerAnswer } from './jobs.js';

const { dbPath } = workerData as { dbPath: string };
const db = new Database(dbPath, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 15000');
const store = new Store(db);

parentPort!.on('message', (job: WorkerJob) => {
  void answer(job).then((a) => {
    const transfer = a.ok && a.job === 'export' ? [a.value.bytes.buffer as ArrayBuffer] : [];
    parentPort!.postMessage(a, transfer);
  });
});

async function answer(job: WorkerJob): Promise<WorkerAnswer> {
  try {
    if (job.job === 'build') {
      const parts = readAndBuild(store, job.vouched && new Set(job.vouched));
      return { id: job.id, ok: true, job: 'build', value: parts };
    }
    return { id: job.id, ok: true, job: 'export', value: await exportTarball(store) };
  } catch (err) {
    return { id: job.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
