// What the serving thread and the poll worker (pollWorker.ts) say to each other.
import type { FlushOutcome } from '../../store/fleet.js';
import type { FleetSettings, FlushStats, PollCounts } from './pollRecorder.js';

/** What the worker is started with. */
export interface PollWorkerData {
  /** The store: a SQLite file or a postgres:// URL. */
  location: string;
  settings: FleetSettings;
  /** --db-max-size, which the worker's own connection to a SQLite file keeps to as well. */
  sqliteMaxBytes: number | undefined;
  /** The serving thread's time when it started the worker. */
  now: number;
}

export type ToPollWorker =
  /** Polls answered: five values each (id, version, channel, arch, time); `refused`: polls turned away meanwhile. */
  | { kind: 'polls'; polls: unknown[]; refused: number }
  /** Write the batch now; answered by `done`. */
  | { kind: 'flush'; id: number; now: number }
  /** Write what is left and close the store; answered by `done`. */
  | { kind: 'close'; id: number; now: number };

export type FromPollWorker =
  /** After each message of polls (`taken`: how many) and each flush: the recorder's counts. */
  | { kind: 'state'; taken: number; counts: PollCounts; flushes: FlushStats; pending: number }
  /** A flush wrote clusters. */
  | { kind: 'flushed'; outcome: FlushOutcome }
  | { kind: 'done'; id: number; outcome: FlushOutcome | undefined }
  | { kind: 'warn'; obj: object; msg: string };
