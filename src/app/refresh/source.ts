// A source the service reads at start and again every scrape interval (a registry repository of release
// images, a graph-data image). Each keeps its status for /readyz and the metrics; a failed read changes
// nothing in the store, so the last good graph keeps serving.
import type { Clock } from '../../clock.js';
import type { SourceStatus } from '../../schemas/health.js';
import { formatProblem, type Problem } from '../../validation/problems.js';

export interface SourceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Thrown by a read that found the source unusable; its problems are reported whole. */
export class SourceRejected extends Error {
  constructor(
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
  }
}

export abstract class Source {
  readonly status: SourceStatus;

  constructor(
    name: string,
    kind: SourceStatus['kind'],
    protected readonly clock: Clock,
    protected readonly log: SourceLog,
  ) {
    this.status = { name, kind, ready: false, reads: 0, failures: 0 };
  }

  /** Reads the source into the store; true when the store changed (the graph must be rebuilt). */
  protected abstract read(): Promise<boolean>;

  /**
   * Takes up what an earlier read left in the store: one by this process before a restart, or by
   * another replica (the one that reads the sources). A source read before is ready.
   */
  abstract recall(): Promise<void>;

  /** One read with its status kept; never throws. */
  async refresh(): Promise<boolean> {
    const started = this.clock.now();
    const at = new Date(started).toISOString();
    this.status.lastAttemptAt = at;
    this.status.reads += 1;
    try {
      const changed = await this.read();
      this.status.ready = true;
      this.status.lastSuccessAt = new Date(this.clock.now()).toISOString();
      delete this.status.lastFailure;
      return changed;
    } catch (err) {
      this.status.failures += 1;
      const problems = err instanceof SourceRejected ? err.problems.map(formatProblem) : [];
      const message = err instanceof Error ? err.message : String(err);
      this.status.lastFailure = { at, message, problems: problems.slice(0, 100) };
      this.log.error({ source: this.status.name, message, problems: problems.slice(0, 20) }, 'source read failed');
      return false;
    } finally {
      this.status.lastDurationSeconds = (this.clock.now() - started) / 1000;
    }
  }
}
