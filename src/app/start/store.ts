// The store step: the store opened at its location (a SQLite file, :memory:, or PostgreSQL) without
// reading it, and later connected, waiting with a growing pause while the database cannot be reached.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../clock.js';
import { formatSeconds } from '../../duration.js';
import { redactedLocation } from '../../store/postgresConnection.js';
import { SchemaTooNew, StoreUnavailable } from '../../store/sql.js';
import { Store } from '../../store/store.js';

export interface StoreSettings {
  /** A SQLite file, :memory:, or a postgres:// URL. */
  db: string;
  /** The most connections to PostgreSQL (default 10). */
  poolSize?: number;
  /** The bytes a SQLite store may grow to (none: the disk's). */
  maxBytes?: number;
}

/** The pauses between attempts to reach the database at start: doubling from the first to the last. */
export const CONNECT_BACKOFF_MS = { first: 500, last: 30_000 };

/** The store, not connected yet, and where it is as messages show it (no password). */
export function openStore(
  settings: StoreSettings,
  clock: Clock,
): { store: Store; where: string } | { problem: string } {
  const where = redactedLocation(settings.db);
  try {
    const store = Store.at(settings.db, {
      clock,
      postgres: { poolSize: settings.poolSize },
      ...(settings.maxBytes && { sqlite: { maxBytes: settings.maxBytes } }),
    });
    return { store, where };
  } catch (err) {
    return { problem: `the store ${where} cannot be opened: ${(err as Error).message}` };
  }
}

/** What ends a start with one line saying why (the caller stops and reports it). */
export class StartProblem extends Error {}

/** Connects and migrates; a schema too new or a store that cannot be used is a StartProblem. */
export async function connectStore(store: Store, where: string): Promise<void> {
  try {
    await store.connect();
  } catch (err) {
    if (err instanceof SchemaTooNew) throw new StartProblem(err.message);
    if (err instanceof StoreUnavailable) throw err;
    throw new StartProblem(`the store ${where} cannot be used: ${(err as Error).message}`);
  }
}

/**
 * Runs `attempt` until it ends without a StoreUnavailable (the database cannot be reached, at first or
 * on the way), pausing between attempts for a time that doubles and telling `waiting` why each time.
 */
export async function whileUnreachable<T>(
  attempt: () => Promise<T>,
  waiting: (problem: string) => void,
  signal: AbortSignal,
): Promise<T> {
  for (let pause = CONNECT_BACKOFF_MS.first; ; pause = Math.min(pause * 2, CONNECT_BACKOFF_MS.last)) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof StoreUnavailable)) throw err;
      waiting(`${err.message}; trying again in ${formatSeconds(pause)}`);
      await sleep(pause, undefined, { signal }).catch(() => {});
      if (signal.aborted) throw new StartProblem('stopped before the database could be reached');
    }
  }
}
