// A source the service reads at start and again every scrape interval (a registry repository of release
// images, a graph-data image). Each keeps its status for /readyz and the metrics; a failed read changes
// nothing in the store, so the last good graph keeps serving.
import type { Clock } from '../../clock.js';
import { deadline } from '../../deadline.js';
import type { Log } from '../../log.js';
import type { SourceStatus } from '../../schemas/health.js';
import { formatProblem, type Problem } from '../../validation/problems.js';

/** Thrown by a read that found the source unusable; its problems are reported whole. */
export class SourceRejected extends Error {
  constructor(
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
  }
}

/** How long one read may take, whole, by default (--registry-scrape-deadline). */
export const DEFAULT_READ_DEADLINE_MS = 30 * 60_000;

/** How many of its last answers a source remembers, to tell a new answer from one it flips back to. */
const REMEMBERED_ANSWERS = 6;

export abstract class Source {
  readonly status: SourceStatus;
  /** Fingerprints of the last reads' answers, oldest first, and of the answer the store holds. */
  private readonly answers: string[] = [];
  protected applied: string | undefined;
  /** How long one read may take, every request of it included; past it the read fails and stops. */
  deadlineMs = DEFAULT_READ_DEADLINE_MS;

  constructor(
    name: string,
    kind: SourceStatus['kind'],
    protected readonly clock: Clock,
    protected readonly log: Log,
  ) {
    this.status = { name, kind, ready: false, reads: 0, failures: 0 };
  }

  /**
   * Reads the source into the store; true when the store changed (the graph must be rebuilt). `signal`
   * aborts at the read's deadline: every request of the read must carry it.
   */
  protected abstract read(signal: AbortSignal): Promise<boolean>;

  /**
   * Takes up what an earlier read left in the store: one by this process before a restart, or by
   * another replica (the one that reads the sources). A source read before is ready.
   */
  abstract recall(): Promise<void>;

  /** Keeps the first 20 warnings of this read for /readyz (none: the field goes). */
  protected keepWarnings(warnings: readonly Problem[]): void {
    if (warnings.length) this.status.warnings = warnings.slice(0, 20).map(formatProblem);
    else delete this.status.warnings;
  }

  /**
   * Damping: whether the answer `fingerprint` must not be applied yet. A new answer is applied at once; an
   * answer the source gave a few reads ago, and not in the read before this one, is a flip back (a registry
   * alternating between two states): it is held back, and reported, until two reads in a row give it. The
   * caller records `applied` when it writes.
   */
  protected holdBack(fingerprint: string): boolean {
    const previous = this.answers.at(-1);
    const seenBefore = this.answers.includes(fingerprint);
    this.answers.push(fingerprint);
    if (this.answers.length > REMEMBERED_ANSWERS) this.answers.shift();
    if (previous === fingerprint) delete this.status.flapping;
    if (fingerprint === this.applied || !seenBefore || previous === fingerprint) return false;
    const flapping = (this.status.flapping ??= { since: new Date(this.clock.now()).toISOString(), heldBack: 0 });
    flapping.heldBack += 1;
    this.status.heldBack = (this.status.heldBack ?? 0) + 1;
    this.log.warn(
      { source: this.status.name, heldBack: flapping.heldBack },
      'the source flips back to an answer it gave before: held back until two reads in a row give it',
    );
    return true;
  }

  /** One read with its status kept, ended at its deadline; never throws. */
  async refresh(): Promise<boolean> {
    const started = this.clock.now();
    const at = new Date(started).toISOString();
    this.status.lastAttemptAt = at;
    // Real time, as /readyz and the metrics compute the read's age from it.
    this.status.readingSince = new Date().toISOString();
    this.status.reads += 1;
    const seconds = this.deadlineMs / 1000;
    const ends = deadline(
      this.deadlineMs,
      () =>
        new SourceRejected(
          `${this.status.name}: the read did not end within ${seconds} s (--registry-scrape-deadline)`,
        ),
    );
    try {
      const changed = await Promise.race([this.read(ends.signal), aborted(ends.signal)]);
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
      ends.clear();
      delete this.status.readingSince;
      this.status.lastDurationSeconds = (this.clock.now() - started) / 1000;
    }
  }
}

/**
 * Rejects with the signal's reason when it aborts: a read that does not notice its signal (work between
 * requests) still ends at its deadline, for the caller; what it left running stops at its next request.
 */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
  );
}
