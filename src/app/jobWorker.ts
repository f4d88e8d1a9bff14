// A worker thread that answers jobs, one answer per job, matched by id: the plumbing the build worker and
// the fleet's query worker share. The worker is started on first use and again after it died (the jobs
// it held then fail, as StoreUnavailable: the caller may ask again); an idle worker does not keep the
// process alive. After close(), jobs are refused.
import { Worker } from 'node:worker_threads';
import { StoreUnavailable } from '../store/sql.js';

/** What a worker answers a job with. `unavailable`: the database could not be read (a StoreUnavailable here too). */
export type JobAnswer<T> =
  { id: number; ok: true; value: T } | { id: number; ok: false; error: string; unavailable: boolean };

interface Pending {
  resolve(a: JobAnswer<unknown>): void;
  reject(e: Error): void;
}

export class JobWorker<Job extends object> {
  private worker: { thread: Worker; pending: Map<number, Pending> } | undefined;
  private nextId = 1;
  private closed = false;

  constructor(
    /** The worker's compiled module. */
    private readonly url: URL,
    private readonly workerData: unknown,
    /** How errors name it: "the build worker". */
    private readonly name: string,
  ) {}

  /** The value the worker answered `job` with; its error (StoreUnavailable when the store was) otherwise. */
  async run<T>(job: Job, transfer?: (value: T) => T): Promise<T> {
    if (this.closed) throw new StoreUnavailable(`${this.name} is closed`);
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    worker.thread.ref(); // a job under way keeps the process alive; an idle worker does not
    const a = await new Promise<JobAnswer<unknown>>((resolve, reject) => {
      worker.pending.set(id, { resolve, reject });
      try {
        worker.thread.postMessage({ ...job, id });
      } catch (err) {
        // A job that cannot be sent (not cloneable) fails alone.
        worker.pending.delete(id);
        if (worker.pending.size === 0) worker.thread.unref();
        reject(err as Error);
      }
    });
    if (!a.ok) throw a.unavailable ? new StoreUnavailable(a.error) : new Error(a.error);
    return transfer ? transfer(a.value as T) : (a.value as T);
  }

  /** Starts the worker now, so that the first job does not wait for it. */
  warm(): void {
    if (!this.closed) this.worker ??= this.start();
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.thread.terminate();
  }

  private start(): { thread: Worker; pending: Map<number, Pending> } {
    // Each worker has the jobs it was given: one that died fails its own, never those of the next.
    const worker = {
      thread: new Worker(this.url, { workerData: this.workerData }),
      pending: new Map<number, Pending>(),
    };
    const { thread, pending } = worker;
    thread.unref();
    thread.on('message', (a: JobAnswer<unknown>) => {
      const p = pending.get(a.id);
      pending.delete(a.id);
      if (pending.size === 0) thread.unref();
      p?.resolve(a);
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const p of pending.values()) p.reject(new StoreUnavailable(`${this.name} failed: ${err.message}`));
      pending.clear();
    };
    thread.on('error', fail);
    thread.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
    return worker;
  }
}

/** The answer to a job on the worker's side: its value, or its error as a message. */
export async function answerOf<T>(id: number, work: () => Promise<T>): Promise<JobAnswer<T>> {
  try {
    return { id, ok: true, value: await work() };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return { id, ok: false, error, unavailable: err instanceof StoreUnavailable };
  }
}
