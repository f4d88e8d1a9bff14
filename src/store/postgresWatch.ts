// Follows the writes of the other replicas of a PostgreSQL store. A connection of its own LISTENs for
// their notifications (reconnecting with a growing pause when lost), and the store's generation is read
// every pollMs in case one was lost: through that connection while it is up, so a pool taken by
// writers waiting for the write lock never makes the database look unreachable; through the pool
// otherwise. What each generation means (another's write, or this replica's own) is generations.ts's.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Generations, Learnt } from './generations.js';
import { pgModule, postgresConfig } from './postgresConnection.js';
import type { DatabaseListener } from './sql.js';

/** How long the generation check may go unanswered before the database is reported as not answering. */
const STALLED_MS = 2000;

/** The notification channel of writes: the payload is `<generation>[ <notice>]`. */
export const CHANNEL = 'cincy_store';

export interface Followed {
  location: string;
  /** For messages: the URL without its password. */
  where: string;
  pool: pg.Pool;
  generations: Generations;
  pollMs: number;
}

/** Starts following; returns the stop. */
export function followWrites(db: Followed, listener: DatabaseListener): () => void {
  let problem: string | undefined;
  const health = (now: string | undefined): void => {
    if (now === problem) return;
    problem = now;
    listener.health(now);
  };
  const act = (learnt: Learnt | undefined): void => {
    if (learnt) listener.changed(learnt.notice);
  };
  let listening: pg.Client | undefined;
  /** When the check under way was sent (a paused server answers none: it is reported before its timeout). */
  let checking: number | undefined;
  const check = async (): Promise<void> => {
    if (checking !== undefined) {
      const waited = Date.now() - checking;
      if (waited > STALLED_MS)
        health(`the database ${db.where} has not answered a query for more than ${STALLED_MS / 1000} s`);
      return;
    }
    checking = Date.now();
    try {
      const r = await (listening ?? db.pool).query<{ generation: number }>('SELECT generation FROM store_generation');
      act(db.generations.checked(r.rows[0]?.generation ?? 0));
      health(undefined);
    } catch (err) {
      health(`the database ${db.where} is unreachable: ${(err as Error).message}`);
    } finally {
      checking = undefined;
    }
  };
  const notified = (payload: string): void => {
    const space = payload.indexOf(' ');
    const generation = Number(space < 0 ? payload : payload.slice(0, space));
    if (Number.isInteger(generation))
      act(db.generations.notified(generation, space < 0 ? undefined : payload.slice(space + 1)));
  };

  const stop = new AbortController();
  void (async () => {
    for (let pause = 250; !stop.signal.aborted; pause = Math.min(pause * 2, 5000)) {
      const client = new (pgModule().Client)(postgresConfig(db.location, 1, 'cincy-listener'));
      let stopped!: () => void;
      const lost = new Promise<void>((resolve) => {
        client.on('error', () => resolve());
        client.on('end', () => resolve());
        stopped = () => resolve();
        stop.signal.addEventListener('abort', stopped, { once: true });
      });
      try {
        await client.connect();
        client.on('notification', (m) => m.channel === CHANNEL && m.payload && notified(m.payload));
        await client.query(`LISTEN ${CHANNEL}`);
        listening = client;
        pause = 250;
        await check(); // what was written while no one listened
        await lost;
      } catch {
        // unreachable: the generation check reports it; try again after the pause
      }
      listening = undefined;
      stop.signal.removeEventListener('abort', stopped);
      await client.end().catch(() => {});
      if (!stop.signal.aborted) await sleep(pause, undefined, { signal: stop.signal }).catch(() => {});
    }
  })();
  const timer = setInterval(() => void check(), db.pollMs);
  timer.unref();
  return () => {
    stop.abort();
    clearInterval(timer);
  };
}
