// The store on SQLite (better-sqlite3): one file in WAL mode, or :memory:. One connection serves the
// process, so its transactions take turns (a queue); a write first takes the file's write lock
// (BEGIN IMMEDIATE), waiting for another process's without blocking the thread and without holding
// up this process's reads. Commits of other processes (`cincy import`, a second server on the same
// file) are noticed through the file's data version.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { formatSeconds } from '../duration.js';
import { migrate, migrationsOf, type Migration } from './migrations.js';
import { Turns } from './turns.js';
import {
  StoreFull,
  StoreUnavailable,
  type Database,
  type DatabaseListener,
  type Sql,
  type SqlValue,
  type TxMode,
} from './sql.js';

/** How long a write waits for another process's write lock before it gives up (nothing written). */
export const SQLITE_BUSY_WAIT_MS = 20_000;
/** How long one attempt to take the write lock blocks the thread before it yields and tries again. */
const LOCK_ATTEMPT_MS = 25;
/**
 * Long statements (multi-row INSERTs: one text per row count) kept prepared, the least recently used
 * dropped first: a batch's full chunks share one text, and its last chunk is prepared once.
 */
const KEPT_LONG_STATEMENTS = 32;
/** Statements longer than this count as long. */
const LONG_STATEMENT = 2000;
/** How often the file's data version is read for other processes' commits: a pragma, no I/O. */
export const DATA_VERSION_INTERVAL_MS = 200;

export interface SqliteOptions {
  /** Open an existing file for reading only (the build worker), without migrating it. */
  readonly?: boolean;
  busyWaitMs?: number;
  /** How long one statement blocks the thread waiting for a lock (default 25 ms: the main thread serves). */
  lockAttemptMs?: number;
  now?: () => Date;
  migrations?: Migration[];
  /** The size the file may grow to (PRAGMA max_page_count); past it, writes fail as on a full disk. */
  maxBytes?: number;
}

export class SqliteDatabase implements Database {
  readonly engine = 'sqlite' as const;
  readonly location: string | undefined;
  /** The transactions of this connection, one after another. */
  private readonly turns = new Turns();
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private readonly longStatements = new Map<string, BetterSqlite3.Statement>();
  private readonly busyWaitMs: number;
  /** Whether store_generation exists, once seen (it never goes away; until then it is looked for again). */
  private hasGeneration = false;

  private constructor(
    /** The connection itself: tests reach past the store with it. */
    readonly db: BetterSqlite3.Database,
    path: string,
    private readonly options: SqliteOptions,
  ) {
    this.location = path === ':memory:' ? undefined : path;
    this.busyWaitMs = options.busyWaitMs ?? SQLITE_BUSY_WAIT_MS;
  }

  /** Opens the file (or :memory:); connect() migrates it. */
  static at(path: string, options: SqliteOptions = {}): SqliteDatabase {
    if (path !== ':memory:' && !options.readonly) mkdirSync(dirname(path), { recursive: true });
    const db = new BetterSqlite3(path, options.readonly ? { readonly: true, fileMustExist: true } : {});
    try {
      if (!options.readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
      }
      db.pragma('foreign_keys = ON');
      db.pragma(`busy_timeout = ${options.lockAttemptMs ?? LOCK_ATTEMPT_MS}`);
      if (options.maxBytes) {
        const pageSize = db.pragma('page_size', { simple: true }) as number;
        db.pragma(`max_page_count = ${Math.max(1, Math.floor(options.maxBytes / pageSize))}`);
      }
    } catch (err) {
      db.close();
      throw err;
    }
    return new SqliteDatabase(db, path, options);
  }

  /** Applies the migrations not applied yet (none for a read-only connection); SchemaTooNew for a newer schema. */
  async connect(): Promise<void> {
    if (this.options.readonly) return;
    const migrations = this.options.migrations ?? migrationsOf('sqlite');
    await migrate(this.migrationTarget(), migrations, this.options.now ?? now, this.location ?? ':memory:');
  }

  transaction<T>(mode: TxMode, fn: (sql: Sql) => Promise<T>, options: { unserved?: boolean } = {}): Promise<T> {
    const deadline = performance.now() + this.busyWaitMs;
    const attempt = async (pause: number): Promise<T> => {
      const outcome = await this.turns.run(async () => {
        if (!this.begin(mode)) return { busy: true as const };
        const sql = new SqliteSql(this);
        try {
          const value = await fn(sql);
          // Other connections to the file rebuild for this write, not for a background one.
          if (mode === 'write' && sql.changes > 0 && !options.unserved && this.servedGeneration)
            this.statement(BUMP_GENERATION, false).run();
          this.db.exec('COMMIT');
          return { busy: false as const, value };
        } catch (err) {
          if (this.db.inTransaction) this.db.exec('ROLLBACK');
          throw isFull(err) ? this.full(err as Error) : err;
        }
      });
      if (!outcome.busy) return outcome.value;
      // Another process holds the write lock: wait out of turn, so this process's reads go on meanwhile.
      if (performance.now() + pause > deadline)
        throw new StoreUnavailable(
          `the database is busy: another process has held its write lock for ${formatSeconds(this.busyWaitMs)}`,
        );
      await sleep(pause);
      return attempt(Math.min(pause * 2, 250));
    };
    return attempt(10);
  }

  /**
   * Tells `listener` of commits by other connections that changed what is served: the data version
   * moves with any commit (a poll flush of the fleet worker too), the served generation only with those.
   */
  watch(listener: DatabaseListener): () => void {
    if (!this.location) return () => {};
    let seen = this.dataVersion();
    let served = this.generation();
    const timer = setInterval(() => {
      try {
        const now = this.dataVersion();
        if (now !== seen) {
          seen = now;
          const generation = this.generation();
          if (generation !== served) {
            served = generation;
            listener.changed();
          }
        }
      } catch (err) {
        listener.health(`reading the data version of ${this.location} failed: ${(err as Error).message}`);
      }
    }, DATA_VERSION_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  async close(): Promise<void> {
    await this.turns.run(async () => {}).catch(() => {});
    if (this.db.open) this.db.close();
  }

  /**
   * A statement, prepared once per text (and row shape); of the long ones only the most recently used
   * stay prepared (see KEPT_LONG_STATEMENTS).
   */
  statement(text: string, arrays: boolean): BetterSqlite3.Statement {
    const key = arrays ? `[]${text}` : text;
    const long = text.length > LONG_STATEMENT;
    const kept = long ? this.longStatements : this.statements;
    let s = kept.get(key);
    if (s && long) kept.delete(key); // moved to the newest end below
    if (!s) {
      s = this.db.prepare(text);
      if (arrays) s.raw(true);
    }
    kept.set(key, s);
    if (long && kept.size > KEPT_LONG_STATEMENTS) kept.delete(kept.keys().next().value!);
    return s;
  }

  /** The StoreFull of SQLITE_FULL: the disk, or the size --db-max-size allows, is used up. */
  private full(err: Error): StoreFull {
    const where = this.location ?? ':memory:';
    const cap = this.options.maxBytes ? ` or the ${this.options.maxBytes} bytes of --db-max-size` : '';
    return new StoreFull(
      `the database ${where} is full (its disk${cap}): nothing was written (${err.message}); free space and write again`,
    );
  }

  /** Opens the transaction; false when another process holds the write lock. */
  private begin(mode: TxMode): boolean {
    try {
      this.db.exec(mode === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN');
      return true;
    } catch (err) {
      if (isBusy(err)) return false;
      throw err;
    }
  }

  /** The served generation (migration 008); undefined before it is migrated, when every commit counts. */
  private generation(): number | undefined {
    if (!this.servedGeneration) return this.dataVersion();
    return (
      this.statement('SELECT generation FROM store_generation WHERE id = 1', false).get() as { generation: number }
    ).generation;
  }

  /** Whether the file has the served generation's table (a read-only connection may open an older file). */
  private get servedGeneration(): boolean {
    this.hasGeneration ||=
      this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store_generation'").get() !==
      undefined;
    return this.hasGeneration;
  }

  /** SQLite's count of commits by other connections to the file; reading it costs no I/O. */
  private dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  private migrationTarget() {
    return {
      applied: async (): Promise<number[]> => {
        this.db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
          version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
        const rows = this.db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>;
        return rows.map((r) => r.version);
      },
      apply: async (m: Migration, appliedAt: string): Promise<void> => {
        this.db.transaction(() => {
          this.db.exec(m.sql);
          this.db
            .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
            .run(m.version, m.name, appliedAt);
        })();
      },
    };
  }
}

/** Statements of one transaction on the connection. */
class SqliteSql implements Sql {
  readonly engine = 'sqlite' as const;
  changes = 0;
  /** Not sent: other processes on the file notice a write by the data version, and read everything again. */
  notice: string | undefined;

  constructor(private readonly database: SqliteDatabase) {}

  async all<T>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.database.statement(text, false).all(...params) as T[];
  }

  async rows<T extends unknown[]>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.database.statement(text, true).all(...params) as T[];
  }

  async get<T>(text: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.database.statement(text, false).get(...params) as T | undefined;
  }

  async run(text: string, params: readonly SqlValue[] = []): Promise<number> {
    const { changes } = this.database.statement(text, false).run(...params);
    this.changes += changes;
    return changes;
  }
}

const BUMP_GENERATION = 'UPDATE store_generation SET generation = generation + 1 WHERE id = 1';

/** SQLite's answer when another connection holds the write lock (BEGIN IMMEDIATE fails before anything ran). */
function isBusy(err: unknown): boolean {
  return err instanceof Error && 'code' in err && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_BUSY_SNAPSHOT');
}

function isFull(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'SQLITE_FULL';
}

const now = (): Date => new Date();
