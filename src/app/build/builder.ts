// Where builds run. A store on a database file or on PostgreSQL is read by a worker thread over its
// own connection, so a rebuild never holds up the requests the main thread serves; an in-memory store
// (tests, the demo) can only be read where it lives, so it is built on the main thread, a tick after
// the write.
import { Worker } from 'node:worker_threads';
import { exportTarball, type GraphDataTarball } from '../../sources/export.js';
import { StoreUnavailable } from '../../store/sql.js';
import type { Store } from '../../store/store.js';
import type { WorkerAnswer, WorkerJob } from './jobs.js';
import { readAndBuild, type BuildParts } from './readAndBuild.js';

export interface Builder {
  /** Where its builds run: the thread that serves requests, or a worker. */
  readonly thread: 'main' | 'worker';
  /** A build of the store as it is when the build starts; see readAndBuild for `vouched`. */
  build(vouched: ReadonlySet<string> | undefined): Promise<BuildParts>;
  /** The store as a graph-data .tar.gz. */
  exportTarball(): Promise<GraphDataTarball>;
  /** Gets ready for the first build, so that it is not slower than the next (a worker to start). */
  warm(): void;
  close(): Promise<void>;
}

export function builderFor(store: Store): Builder {
  const location = store.database.location;
  return location === undefined ? new InlineBuilder(store) : new WorkerBuilder(location);
}

export class InlineBuilder implements Builder {
  readonly thread = 'main';
  constructor(private readonly store: Store) {}

  async build(vouched: ReadonlySet<string> | undefined): Promise<BuildParts> {
    await new Promise((resolve) => setImmediate(resolve));
    return readAndBuild(this.store, vouched);
  }

  async exportTarball(): Promise<GraphDataTarball> {
    return exportTarball(await this.store.storedTree());
  }

  warm(): void {}

  async close(): Promise<void> {}
}

// Compiled once for src and dist alike: the worker runs JavaScript, so tests on the sources use the build.
const WORKER_URL = new URL('../../../dist/app/build/worker.js', import.meta.url);

/** One worker, started on first use and again after it died. */
export class WorkerBuilder implements Builder {
  readonly thread = 'worker';
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(a: WorkerAnswer): void; reject(e: Error): void }>();

  constructor(
    /** Where the worker opens the store: a SQLite file or a postgres:// URL. */
    private readonly location: string,
  ) {}

  async build(vouched: ReadonlySet<string> | undefined): Promise<BuildParts> {
    const a = await this.run({ id: 0, job: 'build', ...(vouched && { vouched: [...vouched] }) });
    if (a.job !== 'build') throw new Error(`build worker answered a ${a.job} job`);
    return a.value;
  }

  async exportTarball(): Promise<GraphDataTarball> {
    const a = await this.run({ id: 0, job: 'export' });
    if (a.job !== 'export') throw new Error(`build worker answered a ${a.job} job`);
    // A structured clone turns the Buffer into a Uint8Array over the same bytes.
    const { bytes, etag } = a.value;
    return { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), etag };
  }

  warm(): void {
    this.worker ??= this.start();
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private run(job: WorkerJob): Promise<Extract<WorkerAnswer, { ok: true }>> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    worker.ref(); // a job under way keeps the process alive; an idle worker does not
    return new Promise<WorkerAnswer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id });
    }).then((a) => {
      if (!a.ok) throw a.unavailable ? new StoreUnavailable(a.error) : new Error(a.error);
      return a;
    });
  }

  private start(): Worker {
    const worker = new Worker(WORKER_URL, { workerData: { location: this.location } });
    worker.unref();
    worker.on('message', (a: WorkerAnswer) => {
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
    worker.on('exit', (code) => fail(new Error(`the build worker exited with code ${code}`)));
    return worker;
  }
}
