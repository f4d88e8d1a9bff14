// Reads shared between the callers that ask for the same thing. Callers asking while a read is under
// way get its answer; an answer that cost at least KEEP_ABOVE_MS is handed out again for KEEP_FACTOR
// times what it cost (at most KEEP_AT_MOST_MS), so readers looping on a large fleet's summary keep the
// store busy a tenth of the time at most, however many they are. Cheap answers are never kept: a small
// fleet is always read as it is. At most MAX_UNDER_WAY distinct reads run at once; one more is refused
// (503, try again), so callers that vary their parameters cannot queue unbounded work.
import { performance } from 'node:perf_hooks';
import { ApiError } from '../../errors.js';

const KEEP_ABOVE_MS = 20;
const KEEP_FACTOR = 10;
const KEEP_AT_MOST_MS = 30_000;
/** Answers kept at once; the oldest goes first. */
const MAX_KEPT = 64;
export const MAX_UNDER_WAY = 8;

interface Entry {
  value: Promise<unknown>;
  /** Until when (performance.now()) the answer is handed out again; undefined while under way. */
  until: number | undefined;
}

export class SharedReads {
  private readonly entries = new Map<string, Entry>();
  private underWay = 0;

  /** The answer of `read`, or of the same read (by `key`) under way or kept. */
  get<T>(key: string, read: () => Promise<T>): Promise<T> {
    const known = this.entries.get(key);
    if (known && (known.until === undefined || performance.now() < known.until)) return known.value as Promise<T>;
    return this.run(key, read);
  }

  /** Reads now, counted against the reads under way (but never shared). */
  once<T>(read: () => Promise<T>): Promise<T> {
    return this.run(undefined, read);
  }

  private run<T>(key: string | undefined, read: () => Promise<T>): Promise<T> {
    if (this.underWay >= MAX_UNDER_WAY)
      return Promise.reject(
        new ApiError(
          'service_unavailable',
          `the fleet's store is busy with ${MAX_UNDER_WAY} reads: try again in a second`,
        ),
      );
    this.underWay += 1;
    const started = performance.now();
    const value = read().finally(() => (this.underWay -= 1));
    if (key === undefined) return value;
    const entry: Entry = { value, until: undefined };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_KEPT) this.entries.delete(this.entries.keys().next().value!);
    const forget = (): void => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    value.then(() => {
      const now = performance.now();
      const cost = now - started;
      if (cost < KEEP_ABOVE_MS) forget();
      else entry.until = now + Math.min(KEEP_AT_MOST_MS, cost * KEEP_FACTOR);
    }, forget);
    return value;
  }
}
