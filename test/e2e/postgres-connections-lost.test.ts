// Connections to a real PostgreSQL ended by the server (pg_terminate_backend, a shutdown) while the
// store's transactions and the pool's own queries race for them: every such loss is a rejected query,
// never an 'error' event without a listener, which would end the process (a replica died so when its
// database was stopped: a FATAL read in the same chunk as the answer that handed the connection to a
// waiting checkout).
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { usePostgres } from '../support/postgres.js';

// A server of the file's own: it ends every connection the store makes there.
const postgres = usePostgres({ own: true });

describe.runIf(postgres.available)('the store on postgres, its connections ended by the server', () => {
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown): void => void uncaught.push(err);
  afterEach(() => void process.off('uncaughtException', onUncaught));

  it('rejects the queries of a lost connection and keeps the process alive, however checkouts race', async () => {
    process.on('uncaughtException', onUncaught);
    const url = await postgres.database();
    // Two connections for five loops: checkouts wait, and take a connection the moment another is released.
    const db = new PostgresDatabase(url, { poolSize: 2 });
    await db.connect();
    const killer = new pg.Client({ connectionString: url });
    killer.on('error', () => {});
    await killer.connect();
    const pool = (db as unknown as { pool: pg.Pool }).pool;
    const end = Date.now() + 6000;
    const outcomes = { ok: 0, lost: 0, killed: 0 };
    const transactions = async (): Promise<void> => {
      while (Date.now() < end)
        await db
          .transaction('read', (sql) => sql.get('SELECT 1 AS one'))
          .then(() => outcomes.ok++)
          .catch(() => outcomes.lost++);
    };
    // The pool's callback form releases a connection synchronously, inside the chunk that answered it.
    const poolQueries = async (): Promise<void> => {
      while (Date.now() < end)
        await new Promise<void>((resolve) =>
          pool.query('SELECT 1', (err) => {
            if (err) outcomes.lost++;
            else outcomes.ok++;
            resolve();
          }),
        );
    };
    const terminate = async (): Promise<void> => {
      while (Date.now() < end) {
        const r = await killer.query(
          "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = 'cincy'",
        );
        outcomes.killed += (r.rows[0] as { n: number }).n;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
      }
    };
    try {
      await Promise.all([transactions(), transactions(), transactions(), poolQueries(), poolQueries(), terminate()]);
    } finally {
      await killer.end();
      await db.close();
    }
    expect(uncaught).toEqual([]);
    expect(outcomes.killed).toBeGreaterThan(50);
    expect(outcomes.lost).toBeGreaterThan(0);
    expect(outcomes.ok).toBeGreaterThan(100);
  });
});
