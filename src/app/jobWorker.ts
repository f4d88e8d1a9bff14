// A worker thread that answers jobs, one answer per job, matched by id: the plumbing the build worker and
// the fleet's read worker share. The worker is started on first use and again after it died (the jobs
// under way then fail); an idle worker does not keep the process alive.
import { Worker } from 'node:worker_threads';
import { StoreUnavailable } from '../store/sql.js';

/** What a worker answers a job with. `unavailable`: the database could not be read (a StoreUnavailable here too). */
export type JobAnswer<T> =
  { id: number; ok: true; value: T } | { id: number; ok: false; error: string; unavailable: boolean };

export class JobWorker<Job extends object> {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(a: JobAnswer<unknown>): void; reject(e: Error): void }>();

  constructor(
    /** The worker's compiled module. */
    private readonly url: URL,
    private readonly workerData: unknown,
    /** How errors name it: "the build worker". */
    private readonly name: string,
  ) {}

  /** The value the worker answered `job` with; its error (StoreUnavailable when the store was) otherwise. */
  async run<T>(job: Job, transfer?: (value: T) => T): Promise<T> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    worker.ref(); // a job under way keeps the process alive; an idle worker does not
    const a = await new Promise<JobAnswer<unknown>>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id });
    });
    if (!a.ok) throw a.unavailable ? new StoreUnavailable(a.error) : new Error(a.error);
    return transfer ? transfer(a.value as T) : (a.value as T);
  }

  /** Starts the worker now, so that the first job does not wait for it. */
  warm(): void {
    this.worker ??= this.start();
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private start(): Worker {
    const worker = new Worker(this.url, { workerData: this.workerData });
    worker.unref();
    worker.on('message', (a: JobAnswer<unknown>) => {
      const p = this.pending.get(a.id);
      this.pending.delete(a.id);
      if (this.pending.size === 0) worker.unref();
      p?.resolve(a);
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`${this.name} exited with code ${code}`)));
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
