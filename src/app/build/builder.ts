// Where builds run. A store on a database file or on PostgreSQL is read by a worker thread over its
// own connection, so a rebuild never holds up the requests the main thread serves; an in-memory store
// (tests, the demo) can only be read where it lives, so it is built on the main thread, a tick after
// the write.
import type { GraphDataTarball } from '../../sources/export.js';
import type { Store } from '../../store/store.js';
import { JobWorker } from '../jobWorker.js';
import type { WorkerJob } from './jobs.js';
import { readAndBuild, type BuildParts } from './readAndBuild.js';

export interface Builder {
  /** Where its builds run: the thread that serves requests, or a worker. */
  readonly thread: 'main' | 'worker';
  /** A build of the store as it is when the build starts, as served at `now`; see readAndBuild for `vouched`. */
  build(vouched: ReadonlySet<string> | undefined, now: number): Promise<BuildParts>;
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

  async build(vouched: ReadonlySet<string> | undefined, now: number): Promise<BuildParts> {
    await new Promise((resolve) => setImmediate(resolve));
    return readAndBuild(this.store, vouched, now);
  }

  async exportTarball(): Promise<GraphDataTarball> {
    // Loaded when first asked for, with its tar and YAML writers: a start does without them.
    const { exportTarball } = await import('../../sources/export.js');
    return exportTarball(await this.store.storedTree());
  }

  warm(): void {}

  async close(): Promise<void> {}
}

// Compiled once for src and dist alike: the worker runs JavaScript, so tests on the sources use the build.
const WORKER_URL = new URL('../../../dist/app/build/worker.js', import.meta.url);

/** Builds on one worker (jobWorker.ts), started on first use and again after it died. */
export class WorkerBuilder implements Builder {
  readonly thread = 'worker';
  private readonly worker: JobWorker<WorkerJob>;

  constructor(
    /** Where the worker opens the store: a SQLite file or a postgres:// URL. */
    location: string,
  ) {
    this.worker = new JobWorker(WORKER_URL, { location }, 'the build worker');
  }

  build(vouched: ReadonlySet<string> | undefined, now: number): Promise<BuildParts> {
    return this.worker.run({ job: 'build', now, ...(vouched && { vouched: [...vouched] }) });
  }

  exportTarball(): Promise<GraphDataTarball> {
    // A structured clone turns the Buffer into a Uint8Array over the same bytes.
    return this.worker.run<GraphDataTarball>({ job: 'export' }, ({ bytes, etag }) => ({
      bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      etag,
    }));
  }

  warm(): void {
    this.worker.warm();
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}
