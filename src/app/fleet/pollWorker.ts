// The poll worker: a PollRecorder on a thread of its own, over its own connection to the store (a
// SQLite file, or a pool of one to PostgreSQL), so that merging polls into the batch and writing it
// never hold up the thread that answers requests. The serving thread sends it the polls it answered
// (workerPollRecorder.ts); the worker flushes on its own timer and reports what it did. Times come
// from the serving thread's clock: each poll carries its own, and flushes and pruning use the latest.
import { parentPort, workerData } from 'node:worker_threads';
import type { FlushOutcome } from '../../store/fleet.js';
import { Store } from '../../store/store.js';
import { PollRecorder } from './pollRecorder.js';
import type { FromPollWorker, PollWorkerData, ToPollWorker } from './pollWorkerMessages.js';

const init = workerData as PollWorkerData;
let latest = init.now;
const store = Store.at(init.location, {
  // This thread may block while another connection writes: it answers no request.
  sqlite: { lockAttemptMs: 1000, ...(init.sqliteMaxBytes && { maxBytes: init.sqliteMaxBytes }) },
  postgres: { poolSize: 1 },
});
const post = (m: FromPollWorker): void => parentPort!.postMessage(m);
const recorder = new PollRecorder(store, { now: () => latest }, init.settings, {
  warn: (obj, msg) => post({ kind: 'warn', obj, msg }),
});
recorder.onFlushed = (outcome) => post({ kind: 'flushed', outcome });

let connected: Promise<void> | undefined;
/** The store's connection (PostgreSQL's pool); tried again at the next flush when it failed. */
const connect = (): Promise<void> =>
  (connected ??= store.connect().catch((err: unknown) => {
    connected = undefined;
    post({ kind: 'warn', obj: { err: String(err) }, msg: 'fleet: the poll worker cannot reach the store yet' });
    throw err;
  }));

const report = (taken: number): void =>
  post({
    kind: 'state',
    taken,
    counts: { ...recorder.counts },
    flushes: { ...recorder.flushes },
    pending: recorder.pendingClusters,
  });

/** A flush once connected; a store not reachable yet fails it, and the batch waits for the next. */
async function flush(): Promise<FlushOutcome | undefined> {
  await connect().catch(() => {});
  const outcome = await recorder.flush();
  report(0);
  return outcome;
}

const timer = setInterval(() => void flush(), init.settings.flushIntervalMs);

parentPort!.on('message', (m: ToPollWorker) => {
  if (m.kind === 'polls') {
    const p = m.polls;
    for (let i = 0; i < p.length; i += 5)
      recorder.take(p[i], p[i + 1], p[i + 2] as string, p[i + 3] as string, p[i + 4] as number);
    if (p.length > 0) latest = Math.max(latest, p[p.length - 1] as number);
    if (m.refused > 0) recorder.refused(m.refused);
    report(p.length / 5);
    return;
  }
  latest = Math.max(latest, m.now);
  if (m.kind === 'flush') {
    void flush().then((outcome) => post({ kind: 'done', id: m.id, outcome }));
    return;
  }
  clearInterval(timer);
  void connect()
    .catch(() => {})
    .then(() => recorder.close())
    .then(() => report(0))
    .finally(() => store.close())
    .then(() => post({ kind: 'done', id: m.id, outcome: undefined }));
});
