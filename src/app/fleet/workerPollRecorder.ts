// Poll recording off the serving thread. A store on a database file or on PostgreSQL has its polls
// recorded by a worker thread (pollWorker.ts) over a connection of its own: the serving thread only
// appends each answered poll to a list and hands the list over every POLLS_PER_MESSAGE polls or
// SEND_AFTER_MS, so merging polls and writing them to the store (SQLite's calls block their thread)
// cost the requests nothing. A store in memory can only be written where it lives: its polls are
// recorded by a PollRecorder on the serving thread.
import { Worker } from 'node:worker_threads';
import type { Clock } from '../../clock.js';
import type { FlushOutcome } from '../../store/fleet.js';
import type { Store } from '../../store/store.js';
import {
  PollRecorder,
  type FleetRecorder,
  type FleetSettings,
  type FlushStats,
  type PollCounts,
} from './pollRecorder.js';
import { polledNames, type ServedNames } from './pollNames.js';
import type { FromPollWorker, PollWorkerData, ToPollWorker } from './pollWorkerMessages.js';

/** Polls handed to the worker in one message, at most. */
const POLLS_PER_MESSAGE = 512;
/** How long a poll waits at most before it is handed over. */
const SEND_AFTER_MS = 50;
/** Values per poll in a message: id, version, channel, arch, time. */
const FIELDS = 5;

// Compiled once for src and dist alike: the worker runs JavaScript, so tests on the sources use the build.
const WORKER_URL = new URL('../../../dist/app/fleet/pollWorker.js', import.meta.url);

type Log = { warn(obj: object, msg: string): void };

/** Where polls are recorded for `store`: on a worker when the store is a file or PostgreSQL. */
export function pollRecorderFor(
  store: Store,
  clock: Clock,
  settings: FleetSettings,
  log: Log,
  sqliteMaxBytes: number | undefined,
): FleetRecorder {
  const location = store.database.location;
  return location === undefined
    ? new PollRecorder(store, clock, settings, log)
    : new WorkerPollRecorder(location, clock, settings, log, sqliteMaxBytes);
}

export class WorkerPollRecorder implements FleetRecorder {
  onFlushed: ((outcome: FlushOutcome) => void) | undefined;
  private worker: Worker | undefined;
  private polls: unknown[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Polls handed over and not yet taken into the worker's batch. */
  private inFlight = 0;
  /** Polls turned away here since the last message (the worker's backlog was full). */
  private refused = 0;
  /** Polls lost with a worker that stopped. */
  private lost = 0;
  /** What the workers that stopped had counted: a new worker counts from zero. */
  private before: PollCounts = { recorded: 0, noId: 0, malformed: 0, batchFull: 0 };
  private flushesBefore = { ok: 0, failed: 0, overCap: 0, evicted: 0, implausible: 0 };
  private reported: { counts: PollCounts; flushes: FlushStats; pending: number } = {
    counts: { recorded: 0, noId: 0, malformed: 0, batchFull: 0 },
    flushes: { ok: 0, failed: 0, lastClusters: 0, lastSeconds: 0, overCap: 0, evicted: 0, implausible: 0 },
    pending: 0,
  };
  private nextId = 1;
  private readonly answers = new Map<number, (outcome: FlushOutcome | undefined) => void>();

  constructor(
    private readonly location: string,
    private readonly clock: Clock,
    readonly settings: FleetSettings,
    private readonly log: Log,
    private readonly sqliteMaxBytes: number | undefined,
  ) {}

  /** As the worker last reported them, with the polls turned away here and not yet reported. */
  get counts(): PollCounts {
    const c = this.reported.counts;
    const b = this.before;
    return {
      recorded: b.recorded + c.recorded,
      noId: b.noId + c.noId,
      malformed: b.malformed + c.malformed,
      batchFull: b.batchFull + c.batchFull + this.refused + this.lost,
    };
  }

  get flushes(): FlushStats {
    const f = this.reported.flushes;
    const b = this.flushesBefore;
    return {
      ...f,
      ok: b.ok + f.ok,
      failed: b.failed + f.failed,
      overCap: b.overCap + f.overCap,
      evicted: b.evicted + f.evicted,
      implausible: b.implausible + f.implausible,
    };
  }

  get pendingClusters(): number {
    return this.reported.pending;
  }

  record(id: unknown, version: unknown, channel: string, arch: string, served: ServedNames): void {
    // The worker's backlog is bounded as its batch is: past maxPending polls, they are counted, not kept.
    if (this.inFlight + this.polls.length / FIELDS >= this.settings.maxPending) {
      this.refused += 1;
      return;
    }
    // Named here, where the graph the answer was made from is: the worker has none. What cannot be an
    // id or a version crosses as null, which the worker counts as malformed, not as the kilobytes it was.
    const names = polledNames(served, channel, arch, version);
    this.polls.push(within(id, 36), within(names.version, 64), names.channel, names.arch, this.clock.now());
    if (this.polls.length >= POLLS_PER_MESSAGE * FIELDS) this.send();
    else this.timer ??= setTimeout(() => this.send(), SEND_AFTER_MS).unref();
  }

  start(): void {
    this.worker ??= this.startWorker();
  }

  async flush(): Promise<FlushOutcome | undefined> {
    this.send();
    return this.ask('flush');
  }

  async close(): Promise<void> {
    this.send();
    if (!this.worker) return;
    await this.ask('close');
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  /** Hands the polls gathered so far to the worker (started again if it stopped). */
  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.polls.length === 0 && this.refused === 0) return;
    const message: ToPollWorker = { kind: 'polls', polls: this.polls, refused: this.refused };
    this.inFlight += this.polls.length / FIELDS;
    this.polls = [];
    this.refused = 0;
    (this.worker ??= this.startWorker()).postMessage(message);
  }

  private ask(kind: 'flush' | 'close'): Promise<FlushOutcome | undefined> {
    const worker = (this.worker ??= this.startWorker());
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.answers.set(id, resolve);
      worker.postMessage({ kind, id, now: this.clock.now() } satisfies ToPollWorker);
    });
  }

  private startWorker(): Worker {
    const data: PollWorkerData = {
      location: this.location,
      settings: this.settings,
      sqliteMaxBytes: this.sqliteMaxBytes,
      now: this.clock.now(),
    };
    const worker = new Worker(WORKER_URL, { workerData: data });
    worker.unref(); // its flush timer does not keep the process alive; close() writes what is left
    worker.on('message', (m: FromPollWorker) => {
      if (m.kind === 'state') {
        this.inFlight -= m.taken;
        this.reported = { counts: m.counts, flushes: m.flushes, pending: m.pending };
      } else if (m.kind === 'flushed') this.onFlushed?.(m.outcome);
      else if (m.kind === 'done') {
        this.answers.get(m.id)?.(m.outcome);
        this.answers.delete(m.id);
      } else this.log.warn(m.obj, m.msg);
    });
    const stopped = (why: string): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Its batch and the polls it had not taken are gone: counted with the polls not kept.
      const lost = this.inFlight + this.reported.pending;
      this.lost += this.inFlight;
      this.inFlight = 0;
      this.before = { ...this.counts, batchFull: this.before.batchFull + this.reported.counts.batchFull };
      const { ok, failed, overCap, evicted, implausible } = this.flushes;
      this.flushesBefore = { ok, failed, overCap, evicted, implausible };
      const flushes = { ...this.reported.flushes, ok: 0, failed: 0, overCap: 0, evicted: 0, implausible: 0 };
      this.reported = { counts: { recorded: 0, noId: 0, malformed: 0, batchFull: 0 }, flushes, pending: 0 };
      this.log.warn(
        { why, polls: lost },
        'fleet: the poll worker stopped; its polls were lost; started again at the next poll',
      );
      for (const answer of this.answers.values()) answer(undefined);
      this.answers.clear();
    };
    worker.on('error', (err) => stopped(String(err)));
    worker.on('exit', (code) => stopped(`exit code ${code}`));
    return worker;
  }
}

/** A query value as it is when it may be what a poll names (absent, or a string of at most `max` characters); null otherwise. */
const within = (value: unknown, max: number): unknown =>
  value === undefined || (typeof value === 'string' && value.length <= max) ? value : null;
