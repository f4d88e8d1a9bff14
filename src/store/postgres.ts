// The store on PostgreSQL, shared by any number of replicas: a bounded pool of connections (pg).
// Every write transaction holds one advisory lock for the whole database, so writes from every replica
// apply one at a time, exactly as on SQLite; within a replica they take turns before they take a
// connection, so writers waiting for the lock never fill the pool. Reads see one snapshot (REPEATABLE
// READ). A write that changed a row bumps the store's generation and notifies the other replicas on
// commit; postgresWatch.ts follows theirs.
import type pg from 'pg';
import { formatSeconds } from '../duration.js';
import { Generations } from './generations.js';
import { migrate, migrationsOf, type Migration } from './migrations.js';
import {
  isConnectionError,
  LOCK_KEYS,
  pgModule,
  postgresConfig,
  redactedLocation,
  unavailable,
} from './postgresConnection.js';
import { CHANNEL, followWrites } from './postgresWatch.js';
import {
  StoreFull,
  StoreUnavailable,
  type Database,
  type DatabaseListener,
  type Sql,
  type SqlValue,
  type TxMode,
} from './sql.js';
import { Turns } from './turns.js';

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
  private readonly pool: pg.Pool;
  private ready: boolean;
  /** This replica's generations: known from connect() on. */
  private generations = new Generations(0);
  private readonly writes = new Turns();
  private closed = false;
  private readonly options: Required<Pick<PostgresOptions, 'pollMs' | 'lockWaitMs'>> & PostgresOptions;

  constructor(
    readonly location: string,
    options: PostgresOptions = {},
  ) {
    this.options = { pollMs: 1000, lockWaitMs: 20_000, ...options };
    const size = options.readonly ? 1 : (options.poolSize ?? 10);
    this.pool = new (pgModule().Pool)(postgresConfig(location, size, 'cincy', options.statementTimeoutMs));
    // An idle connection whose server went away: the pool drops it; the next transaction reconnects.
    this.pool.on('error', () => {});
    // A connection's own errors are reported to no one from the moment it connects (its queries reject
    // instead). Added at checkout, it came a microtask late: the pool hands a released connection to a
    // waiting checkout synchronously, so a FATAL read in the same chunk (the server shutting down) was
    // an 'error' event with no listener, which ends the process.
    this.pool.on('connect', (client) => client.on('error', () => {}));
    this.ready = !!options.readonly;
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
      this.generations = new Generations(row.rows[0]?.generation ?? 0);
      this.ready = true;
    } catch (err) {
      broken = isConnectionError(err);
      throw broken ? unavailable(this.where(), err) : err;
    } finally {
      client.release(broken);
    }
  }

  transaction<T>(mode: TxMode, fn: (sql: Sql) => Promise<T>, options: { unserved?: boolean } = {}): Promise<T> {
    if (!this.ready) return Promise.reject(new StoreUnavailable(`the database ${this.where()} is not connected yet`));
    if (mode === 'read') return this.run('read', fn, options);
    const busy = (): StoreUnavailable =>
      new StoreUnavailable(
        `the database is busy: writes have waited ${formatSeconds(this.options.lockWaitMs)} for their turn`,
      );
    return this.writes.run(() => this.run('write', fn, options), this.options.lockWaitMs, busy);
  }

  watch(listener: DatabaseListener): () => void {
    const { location, pool, generations } = this;
    return followWrites({ location, where: this.where(), pool, generations, pollMs: this.options.pollMs }, listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** The URL without its password, for messages. */
  where(): string {
    return redactedLocation(this.location);
  }

  /** One transaction on a connection of the pool. */
  private async run<T>(mode: TxMode, fn: (sql: Sql) => Promise<T>, options: { unserved?: boolean }): Promise<T> {
    const client = await this.checkout();
    let broken = false;
    let committing = false;
    let generation: number | undefined;
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
        generation = bumped.rows[0]!.generation;
        // A notice too long for a notification's payload is left out: the replicas then read everything.
        const notice = sql.notice !== undefined && sql.notice.length <= MAX_NOTICE ? ` ${sql.notice}` : '';
        await client.query('SELECT pg_notify($1, $2)', [CHANNEL, `${generation}${notice}`]);
        this.generations.committing(generation);
      }
      committing = true;
      await client.query('COMMIT');
      return value;
    } catch (err) {
      if (generation !== undefined) this.generations.failed(generation);
      broken = isConnectionError(err);
      if (!broken) await client.query('ROLLBACK').catch(() => (broken = true));
      if (broken && committing)
        throw new StoreUnavailable(
          `the connection to ${this.where()} was lost while committing: the write may have been applied or not; ` +
            'read it back before trying again',
          { cause: err, uncertain: true },
        );
      if (broken) throw unavailable(this.where(), err);
      if (err instanceof pgModule().DatabaseError && err.code === '53100')
        throw new StoreFull(
          `the database ${this.where()} is full (disk_full): nothing was written; free space and write again`,
        );
      if (err instanceof pgModule().DatabaseError && err.code === '55P03')
        throw new StoreUnavailable(
          `the database is busy: another replica has held its write lock for ${formatSeconds(this.options.lockWaitMs)}`,
        );
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /** A connection of the pool (which reports its own errors to no one: see the constructor). */
  private async checkout(): Promise<pg.PoolClient> {
    if (this.closed) throw new StoreUnavailable('the store is closed');
    try {
      return await this.pool.connect();
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
/** Statements longer than this (multi-row INSERTs, of many shapes) are numbered each time, not kept. */
const KEPT_STATEMENT_LENGTH = 2000;

/** The statement with its `?` placeholders numbered `$1`, `$2`… (none is inside a quoted literal here). */
export function numbered(text: string): string {
  let out = placeholders.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/'(?:[^']|'')*'|\?/g, (m) => (m === '?' ? `$${++n}` : m));
    if (text.length <= KEPT_STATEMENT_LENGTH && placeholders.size < 1000) placeholders.set(text, out);
  }
  return out;
}

const now = (): Date => new Date();
