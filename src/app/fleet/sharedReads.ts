// Reads shared between the callers that ask for the same thing. Callers asking while a read is under
// way get its answer; an answer is handed out again for KEEP_FACTOR times what it cost to make (at most
// KEEP_AT_MOST_MS), so readers looping on a large fleet keep the store and the serving thread busy a
// tenth of the time at most, however many they are, while a small fleet is read as it is (an answer of
// a millisecond is kept ten). The time kept runs on the wall and on the service's clock alike (a clock
// set forward ends it), and forget() ends it for every answer when this service writes the fleet. At most
// MAX_UNDER_WAY distinct reads run at once; one more is refused (503, try again), so callers that vary
// their parameters cannot queue unbounded work.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';

const KEEP_FACTOR = 10;
const KEEP_AT_MOST_MS = 30_000;
/** Answers kept at once; the oldest goes first. */
const MAX_KEPT = 256;
export const MAX_UNDER_WAY = 16;

interface Entry {
  value: Promise<unknown>;
  /** forget() calls before the read began: an answer read before a write is not handed out after it. */
  generation: number;
  /** When the answer was made, on the wall (performance.now()) and on the service's clock; undefined while under way. */
  made?: { wall: number; clock: number; keepMs: number };
}

export class SharedReads {
  private readonly entries = new Map<string, Entry>();
  private underWay = 0;
  private generation = 0;

  constructor(private readonly clock: Clock) {}

  /** The answer of `read`, or of the same read (by `key`) under way or kept. */
  get<T>(key: string, read: () => Promise<T>): Promise<T> {
    const known = this.entries.get(key);
    if (known && known.generation === this.generation && this.fresh(known)) return known.value as Promise<T>;
    return this.run(key, read);
  }

  /** Every answer kept or under way is read again by the next caller: the fleet was written. */
  forget(): void {
    this.generation += 1;
    this.entries.clear();
  }

  private fresh(e: Entry): boolean {
    if (!e.made) return true; // under way
    const { wall, clock, keepMs } = e.made;
    return performance.now() - wall < keepMs && Math.abs(this.clock.now() - clock) < keepMs;
  }

  private run<T>(key: string, read: () => Promise<T>): Promise<T> {
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
    const entry: Entry = { value, generation: this.generation };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_KEPT) this.entries.delete(this.entries.keys().next().value!);
    value.then(
      () => {
        const wall = performance.now();
        entry.made = {
          wall,
          clock: this.clock.now(),
          keepMs: Math.min(KEEP_AT_MOST_MS, (wall - started) * KEEP_FACTOR),
        };
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return value;
  }
}
