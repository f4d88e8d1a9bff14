// The messages between the main thread and the build worker.
import type { GraphDataTarball } from '../../sources/export.js';
import type { BuildParts } from './readAndBuild.js';

export type WorkerJob = { id: number; job: 'build'; vouched?: string[] } | { id: number; job: 'export' };

export type WorkerAnswer =
  | { id: number; ok: true; job: 'build'; value: BuildParts }
  | { id: number; ok: true; job: 'export'; value: GraphDataTarball }
  /** `unavailable`: the database could not be read (a StoreUnavailable on this side too). */
  | { id: number; ok: false; error: string; unavailable: boolean };
