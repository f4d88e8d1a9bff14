// Reads shared between the callers that ask for the same thing. Callers asking while a read is under
// way get its answer; an answer is handed out again for KEEP_FACTOR times what it cost to make (at most
// KEEP_AT_MOST_MS), so readers looping on a large fleet keep the store and the serving thread busy a
// tenth of the time at most, however many they are, while a small fleet is read as it is (an answer of
// a millisecond is kept ten). The time kept runs on the wall and on the service's clock alike (a clock
// set forward ends it).
//
// forget() says this service wrote the fleet: what was read before is read again by the next caller.
// An expensive answer (EXPENSIVE_MS or more to make: a large fleet) is the exception: one made, or being
// made, less than WRITE_GRACE_MS ago is still handed out, so a fleet that writes many times a second (its
// polls, its reports) has each such answer made once a second at most instead of at every write.
//
// At most MAX_UNDER_WAY reads run at once; one more is refused (503, try again in a second), so callers
// that vary their parameters cannot queue unbounded work. What is kept is bounded by MAX_KEPT answers and
// MAX_KEPT_BYTES (counted for answers that are bytes); the oldest go first, and so do answers past their time.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';

const KEEP_FACTOR = 10;
const KEEP_AT_MOST_MS = 30_000;
const EXPENSIVE_MS = 250;
const WRITE_GRACE_MS = 1_000;
export const MAX_KEPT = 256;
const MAX_KEPT_BYTES = 64 * 2 ** 20;
export const MAX_UNDER_WAY = 16;

interface Entry {
  value: Promise<unknown>;
  /** forget() calls before the read began. */
  generation: number;
  /** When the read began (performance.now()). */
  started: number;
  /** Whether the key's last answer was expensive to make (known before this one is made). */
  expensive: boolean;
  /** When the answer was made, on the wall and on the service's clock, and for how long it is kept. */
  made?: { wall: number; clock: number; keepMs: number };
  bytes: number;
}

export class SharedReads {
  private readonly entries = new Map<string, Entry>();
  private underWay = 0;
  private generation = 0;
  private bytes = 0;

  /** Keys whose last answer was expensive: known before their next answer is, whatever was pruned. */
  private readonly costly = new Set<string>();
  private readonly maxKept: number;
  private readonly writeGrace: boolean;

  constructor(
    private readonly clock: Clock,
    options: {
      /** Answers kept at most (MAX_KEPT): fewer for answers that are not bytes, whose size is not counted. */
      maxKept?: number;
      /** Whether expensive answers outlive a write by up to WRITE_GRACE_MS (true); false: never (a layer under another that does). */
      writeGrace?: boolean;
    } = {},
  ) {
    this.maxKept = options.maxKept ?? MAX_KEPT;
    this.writeGrace = options.writeGrace ?? true;
  }

  /** The answer of `read`, or of the same read (by `key`) under way or kept. */
  get<T>(key: string, read: () => Promise<T>): Promise<T> {
    const known = this.entries.get(key);
    if (known && this.current(known) && this.fresh(known)) return known.value as Promise<T>;
    return this.run(key, read, this.costly.has(key));
  }

  /** The fleet was written: what was read before is read again (but for the grace of expensive answers). */
  forget(): void {
    this.generation += 1;
  }

  /** Read after the last write, or expensive (known so, or under way that long) and begun less than WRITE_GRACE_MS ago. */
  private current(e: Entry): boolean {
    if (e.generation === this.generation) return true;
    if (!this.writeGrace) return false;
    const age = performance.now() - e.started;
    return (e.expensive || (!e.made && age >= EXPENSIVE_MS)) && age < WRITE_GRACE_MS;
  }

  private fresh(e: Entry): boolean {
    if (!e.made) return true; // under way
    const { wall, clock, keepMs } = e.made;
    return performance.now() - wall < keepMs && Math.abs(this.clock.now() - clock) < keepMs;
  }

  private run<T>(key: string, read: () => Promise<T>, expensive: boolean): Promise<T> {
    if (this.underWay >= MAX_UNDER_WAY)
      return Promise.reject(
        new ApiError(
          'service_unavailable',
          `the fleet's store is busy with ${MAX_UNDER_WAY} reads: try again in a second`,
        ),
      );
    this.underWay += 1;
    const started = performance.now();
    // Never synchronously: a read that throws at once still gives its slot back.
    const value = Promise.resolve()
      .then(read)
      .finally(() => (this.underWay -= 1));
    const entry: Entry = { value, generation: this.generation, started, expensive, bytes: 0 };
    this.remove(key);
    this.entries.set(key, entry);
    this.prune();
    value.then(
      (answer) => {
        const wall = performance.now();
        const cost = wall - started;
        entry.expensive = cost >= EXPENSIVE_MS;
        this.costly.delete(key);
        if (entry.expensive) this.costly.add(key);
        if (this.costly.size > this.maxKept) this.costly.delete(this.costly.values().next().value!);
        entry.made = { wall, clock: this.clock.now(), keepMs: Math.min(KEEP_AT_MOST_MS, cost * KEEP_FACTOR) };
        if (this.entries.get(key) !== entry) return;
        entry.bytes = Buffer.isBuffer(answer) ? answer.length : 0;
        this.bytes += entry.bytes;
        this.prune();
      },
      () => {
        if (this.entries.get(key) === entry) this.remove(key);
      },
    );
    return value;
  }

  private remove(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.bytes -= e.bytes;
    this.entries.delete(key);
  }

  /** Drops answers past their time, then the oldest while there are too many or too many bytes. */
  private prune(): void {
    for (const [key, e] of this.entries) if (e.made && !this.fresh(e)) this.remove(key);
    while (this.entries.size > 0 && (this.entries.size > this.maxKept || this.bytes > MAX_KEPT_BYTES))
      this.remove(this.entries.keys().next().value!);
  }
}
