// The store on PostgreSQL, shared by any number of replicas: a bounded pool of connections (pg);
// every write transaction holds one advisory lock for the whole database, so writes from every
// replica apply one at a time, exactly as on SQLite; reads see one snapshot (REPEATABLE READ). A
// write that changed a row bumps the store's generation and notifies the other replicas on commit
// (LISTEN/NOTIFY); each also compares the generation now and then, in case a notification was lost.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { migrate, migrationsOf, type Migration } from './migrations.js';
import { StoreUnavailable, type Database, type DatabaseListener, type Sql, type SqlValue, type TxMode } from './sql.js';

/** Advisory lock keys of cincy (PostgreSQL's advisory locks are per database). */
export const LOCK_KEYS = {
  /** Held by every write transaction, until it ends. */
  write: '7164801830001',
  /** Held while migrating, so replicas starting together migrate once. */
  migrate: '7164801830002',
  /** Held by the replica that runs the jobs that must run once (see leadership.ts). */
  jobs: '7164801830003',
} as const;

/** The notification channel of writes: the payload is `<replica id> <generation>[ <notice>]`. */
const CHANNEL = 'cincy_store';
/** The longest notice sent: a notification's payload holds less than 8000 bytes. */
const MAX_NOTICE = 7000;

export interface PostgresOptions {
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Open for reading only (the build worker): no migration, a pool of one. */
  readonly?: boolean;
  /** How often the generation is compared, in case a notification was lost (default 1 s). */
  pollMs?: number;
  /** How long a write waits for another replica's write lock before it gives up (default 20 s). */
  lockWaitMs?: number;
  /** How long any statement may take before the connection is taken for lost (default 30 s). */
  statementTimeoutMs?: number;
  now?: () => Date;
  migrations?: Migration[];
}

export class PostgresDatabase implements Database {
  readonly engine = 'postgres' as const;
  /** Tells this replica's notifications from the others'. */
  readonly replicaId = randomUUID();
  private readonly pool: pg.Pool;
  private ready: boolean;
  /** The newest generation this replica knows of (its own writes' and those it was told of). */
  private seen = 0;
  private closed = false;
  private readonly options: Required<Pick<PostgresOptions, 'pollMs' | 'lockWaitMs'>> & PostgresOptions;

  constructor(
    readonly location: string,
    options: PostgresOptions = {},
  ) {
    this.options = { pollMs: 1000, lockWaitMs: 20_000, ...options };
    this.pool = new pg.Pool(postgresConfig(location, options, options.readonly ? 1 : (options.poolSize ?? 10)));
    // An idle connection whose server went away: the pool drops it; the next transaction reconnects.
    this.pool.on('error', () => {});
    this.ready = !!options.readonly;
  }

  /** A URL that names PostgreSQL. */
  static names(location: string): boolean {
    return /^postgres(ql)?:\/\//.test(location);
  }

  /**
   * Connects and applies the migrations not applied yet (once, whichever replicas start together).
   * Throws StoreUnavailable while the server cannot be reached (call again), SchemaTooNew for a
   * schema newer than this program's.
   */
  async connect(): Promise<void> {
    if (this.ready) return;
    const client = await this.checkout();
    let broken = false;
    try {
      await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEYS.migrate]);
      try {
        await migrate(
          this.migrationTarget(client),
          this.options.migrations ?? migrationsOf('postgres'),
          now,
          this.where(),
        );
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEYS.migrate]);
      }
      const row = await client.query<{ generation: number }>('SELECT generation FROM store_generation');
      this.seen = row.rows[0]?.generation ?? 0;
      this.ready = true;
    } catch (err) {
      broken = isConnectionError(err);
      throw broken ? unavailable(this.where(), err) : err;
    } finally {
      client.release(broken);
    }
  }

  async transaction<T>(mode: TxMode, fn: (sql: Sql) => Promise<T>, options: { unserved?: boolean } = {}): Promise<T> {
    if (!this.ready) throw new StoreUnavailable(`the database ${this.where()} is not connected yet`);
    const client = await this.checkout();
    let broken = false;
    let committing = false;
    const before = this.seen;
    try {
      if (mode === 'write') {
        await client.query('BEGIN');
        const wait = String(Math.max(1, Math.floor(this.options.lockWaitMs)));
        await client.query("SELECT set_config('lock_timeout', $1, true)", [wait]); // this transaction only
        await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEYS.write]);
      } else {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      }
      const sql = new PgSql(client);
      const value = await fn(sql);
      if (mode === 'write' && sql.changes > 0 && !options.unserved) {
        const bumped = await client.query<{ generation: number }>(
          'UPDATE store_generation SET generation = generation + 1 RETURNING generation',
        );
        const generation = bumped.rows[0]!.generation;
        // A notice too long for a notification's payload is left out: the replicas then read everything.
        const notice = sql.notice !== undefined && sql.notice.length <= MAX_NOTICE ? ` ${sql.notice}` : '';
        await client.query('SELECT pg_notify($1, $2)', [CHANNEL, `${this.replicaId} ${generation}${notice}`]);
        // Known before the commit, so the generation check never takes this write for another's.
        this.seen = Math.max(this.seen, generation);
      }
      committing = true;
      await client.query('COMMIT');
      return value;
    } catch (err) {
      this.seen = before;
      broken = isConnectionError(err);
      if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
      if (broken && committing)
        throw new StoreUnavailable(
          `the connection to ${this.where()} was lost while committing: the write may have been applied or not; ` +
            'read it back before trying again',
          { cause: err, uncertain: true },
        );
      if (broken) throw unavailable(this.where(), err);
      if (err instanceof pg.DatabaseError && err.code === '55P03')
        throw new StoreUnavailable(
          `the database is busy: another replica has held its write lock for ${this.options.lockWaitMs / 1000} s`,
        );
      throw err;
    } finally {
      client.release(broken);
    }
  }

  watch(listener: DatabaseListener): () => void {
    let problem: string | undefined;
    const health = (now: string | undefined): void => {
      if (now === problem) return;
      problem = now;
      listener.health(now);
    };
    /** A write of `generation`; its notice counts only when no write since the last one seen was missed. */
    const learn = (generation: number, mine: boolean, notice?: string): void => {
      if (generation <= this.seen) return;
      const next = generation === this.seen + 1;
      this.seen = generation;
      if (!mine) listener.changed(next ? notice : undefined);
    };
    const check = async (): Promise<void> => {
      try {
        const r = await this.pool.query<{ generation: number }>('SELECT generation FROM store_generation');
        learn(r.rows[0]?.generation ?? 0, false);
        health(undefined);
      } catch (err) {
        health(`the database ${this.where()} is unreachable: ${(err as Error).message}`);
      }
    };
    const stop = new AbortController();
    void this.listen(
      stop.signal,
      (payload) => {
        const [replica, generation, ...notice] = payload.split(' ');
        learn(Number(generation), replica === this.replicaId, notice.length ? notice.join(' ') : undefined);
      },
      check,
    );
    const timer = setInterval(() => void check(), this.options.pollMs);
    timer.unref();
    return () => {
      stop.abort();
      clearInterval(timer);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** The URL without its password, for messages. */
  where(): string {
    try {
      const url = new URL(this.location);
      if (url.password) url.password = '***';
      return url.toString();
    } catch {
      return 'postgres://…';
    }
  }

  /**
   * Holds a connection LISTENing for writes until `signal` aborts; reconnects with backoff when it is
   * lost, and checks the generation after every (re)connection, for what was missed meanwhile.
   */
  private async listen(signal: AbortSignal, notified: (payload: string) => void, check: () => Promise<void>) {
    for (let pause = 250; !signal.aborted; pause = Math.min(pause * 2, 5000)) {
      const client = new pg.Client(postgresConfig(this.location, this.options, 1));
      const lost = new Promise<void>((resolve) => {
        client.on('error', () => resolve());
        client.on('end', () => resolve());
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      try {
        await client.connect();
        client.on('notification', (m) => m.channel === CHANNEL && m.payload && notified(m.payload));
        await client.query(`LISTEN ${CHANNEL}`);
        pause = 250;
        await check();
        await lost;
      } catch {
        // unreachable: the periodic check reports it; try again after the pause
      }
      await client.end().catch(() => {});
      if (!signal.aborted) await sleep(pause, undefined, { signal }).catch(() => {});
    }
  }

  /** A connection of the pool that reports its own errors to no one (its queries reject instead). */
  private async checkout(): Promise<pg.PoolClient> {
    if (this.closed) throw new StoreUnavailable('the store is closed');
    try {
      const client = await this.pool.connect();
      if (client.listenerCount('error') === 0) client.on('error', () => {});
      return client;
    } catch (err) {
      throw unavailable(this.where(), err);
    }
  }

  private migrationTarget(client: pg.PoolClient) {
    return {
      applied: async (): Promise<number[]> => {
        await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
          version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
        const r = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
        return r.rows.map((row) => row.version);
      },
      apply: async (m: Migration, appliedAt: string): Promise<void> => {
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            m.version,
            m.name,
            appliedAt,
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        }
      },
    };
  }
}

/** Statements of one transaction on one connection of the pool. */
class PgSql implements Sql {
  readonly engine = 'postgres' as const;
  changes = 0;
  notice: string | undefined;

  constructor(private readonly client: pg.PoolClient) {}

  async all<T>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.client.query({ text: numbered(text), values: [...params] })).rows as T[];
  }

  async rows<T extends unknown[]>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.client.query({ text: numbered(text), values: [...params], rowMode: 'array' })).rows as T[];
  }

  async get<T>(text: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  async run(text: string, params: readonly SqlValue[] = []): Promise<number> {
    const changed = (await this.client.query({ text: numbered(text), values: [...params] })).rowCount ?? 0;
    this.changes += changed;
    return changed;
  }
}

const placeholders = new Map<string, string>();

/** The statement with its `?` placeholders numbered `$1`, `$2`… (none is inside a quoted literal here). */
export function numbered(text: string): string {
  let out = placeholders.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/'(?:[^']|'')*'|\?/g, (m) => (m === '?' ? `$${++n}` : m));
    if (placeholders.size < 10_000) placeholders.set(text, out);
  }
  return out;
}

/** Integers of eight bytes (counts, the generation) read as numbers: every one cincy stores fits. */
const TYPES = new pg.TypeOverrides();
TYPES.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

/** The settings of a pool (or a client) on `location`. */
export function postgresConfig(location: string, options: PostgresOptions, max: number): pg.PoolConfig {
  return {
    connectionString: location,
    max,
    types: TYPES,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    query_timeout: options.statementTimeoutMs ?? 30_000,
    keepAlive: true,
    application_name: 'cincy',
  };
}

/** Errors that say the server could not be reached or the connection was lost, not that a statement was wrong. */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)$/.test(code))
      return true;
    // connection_exception; admin_shutdown, crash_shutdown, cannot_connect_now; too_many_connections
    if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|not queryable/i.test(
    err.message,
  );
}

function unavailable(where: string, err: unknown): StoreUnavailable {
  const message = err instanceof Error ? err.message || (err as { code?: string }).code || err.name : String(err);
  return new StoreUnavailable(`the database ${where} is unreachable: ${message}`, { cause: err });
}

const now = (): Date => new Date();
