// What the repositories run their statements on, whichever engine holds the store: one connection
// inside one transaction. Statements are written once, with `?` placeholders, in the SQL both SQLite
// and PostgreSQL take (ON CONFLICT clauses, no engine-only functions); the PostgreSQL side numbers
// the placeholders itself.

export type Engine = 'sqlite' | 'postgres';

export type SqlValue = string | number | Buffer | null;

export interface Sql {
  readonly engine: Engine;
  /** Rows changed by the statements run so far in this transaction. */
  readonly changes: number;
  /**
   * What a write changed, in the store's own words, for the other replicas: sent with the notice of
   * the write (PostgreSQL), so they need not read everything again. Unset: anything may have changed.
   */
  notice: string | undefined;
  /** Every row, as an object keyed by column. */
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Every row as the array of its columns, in order: cheaper than objects for thousands of rows. */
  rows<T extends unknown[]>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Runs a statement and returns how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

/** A read sees one state of the store throughout; a write holds the store's one write lock until it commits. */
export type TxMode = 'read' | 'write';

/** A database holding the store, of either engine. */
export interface Database {
  readonly engine: Engine;
  /**
   * What another connection opens to read the same store (the build worker); undefined for a store
   * that lives in this connection only (SQLite's :memory:).
   */
  readonly location: string | undefined;
  /** Prepares the database for use: connects and applies the migrations it lacks. */
  connect(): Promise<void>;
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. A write
   * that changed rows tells the other connections, unless `unserved` says it changed nothing a
   * graph or an admin read shows (the registry scraper's memory of manifests).
   */
  transaction<T>(mode: TxMode, fn: (sql: Sql) => Promise<T>, options?: { unserved?: boolean }): Promise<T>;
  /**
   * Calls `changed` whenever another connection (another process, another replica) committed a
   * change, and `health` when reaching the database fails or works again; returns the stop.
   */
  watch(listener: DatabaseListener): () => void;
  close(): Promise<void>;
}

export interface DatabaseListener {
  /** Another connection committed a write; `notice` is what it said it changed, when that is all that changed since the last call. */
  changed(notice?: string): void;
  health(problem: string | undefined): void;
}

/**
 * The database could not take the transaction (unreachable, or another process held its write lock
 * too long): nothing of it was written, and the same request can be made again; unless `uncertain`,
 * when the connection was lost while the commit was on its way, which may have been applied.
 */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
  readonly uncertain: boolean;

  constructor(message: string, options: { cause?: unknown; uncertain?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.uncertain = options.uncertain ?? false;
  }
}

/**
 * The database has no room for a write (a full disk, PostgreSQL's disk_full, or SQLite's --db-max-size):
 * nothing of it was written. Reads go on; writes answer 507 until there is room again.
 */
export class StoreFull extends Error {
  override readonly name = 'StoreFull';
}

/** The database holds a schema newer than this program knows: it must not read or write it. */
export class SchemaTooNew extends Error {
  override readonly name = 'SchemaTooNew';
}

/** The most parameters one multi-row statement gets (SQLite and PostgreSQL both take far more). */
const MAX_PARAMS_PER_STATEMENT = 4000;

/**
 * Inserts `rows` (each the values of `columns`, in order) as multi-row INSERTs of a few thousand
 * values each; `tail` follows the VALUES list (an ON CONFLICT clause). Returns the rows changed.
 */
export async function insertRows(
  sql: Sql,
  table: string,
  columns: readonly string[],
  rows: ReadonlyArray<readonly SqlValue[]>,
  tail = '',
): Promise<number> {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS_PER_STATEMENT / columns.length));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  let changed = 0;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const text = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')} ${tail}`;
    changed += await sql.run(text, chunk.flat());
  }
  return changed;
}
