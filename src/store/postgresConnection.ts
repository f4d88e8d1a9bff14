// What every connection cincy makes to PostgreSQL shares: its settings, the reading of eight-byte
// integers, which errors mean the database cannot be reached, and the URL as messages show it.
import type pg from 'pg';
import { lazyModule } from '../lazyModule.js';
import { StoreUnavailable } from './sql.js';
import { isConnectionFailure } from '../networkErrors.js';

/** Advisory lock keys of cincy (PostgreSQL's advisory locks are per database). */
export const LOCK_KEYS = {
  /** Held by every write transaction, until it ends. */
  write: '7164801830001',
  /** Held while migrating, so replicas starting together migrate once. */
  migrate: '7164801830002',
  /** Held by the replica that runs the jobs that must run once (see leadership.ts). */
  jobs: '7164801830003',
} as const;

/** A URL that names PostgreSQL. */
export const namesPostgres = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

/** The pg package, loaded by the first connection (a store on SQLite never needs it). */
export const pgModule = lazyModule<typeof pg>('pg');

/** Integers of eight bytes (counts, the generation) read as numbers: every one cincy stores fits. */
let types: pg.TypeOverrides | undefined;
function int8AsNumber(): pg.TypeOverrides {
  if (types) return types;
  const { TypeOverrides, types: builtin } = pgModule();
  types = new TypeOverrides();
  types.setTypeParser(builtin.builtins.INT8, (v: string) => Number(v));
  return types;
}

/**
 * The settings of a pool of `max` connections (or a client) on `location`; `role` names what they are
 * for where PostgreSQL shows sessions (pg_stat_activity's application_name: cincy, cincy-listener…).
 */
export function postgresConfig(
  location: string,
  max: number,
  role = 'cincy',
  statementTimeoutMs = 30_000,
): pg.PoolConfig {
  return {
    connectionString: location,
    max,
    types: int8AsNumber(),
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    query_timeout: statementTimeoutMs,
    keepAlive: true,
    application_name: role,
  };
}

/**
 * A store's location as messages may show it: a PostgreSQL URL without its password (in the user
 * part or as a `password` parameter); anything else (a SQLite file) as it is.
 */
export function redactedLocation(location: string): string {
  if (!namesPostgres(location)) return location;
  try {
    const url = new URL(location);
    if (url.password) url.password = '***';
    for (const key of [...url.searchParams.keys()])
      if (key.toLowerCase() === 'password') url.searchParams.set(key, '***');
    return url.toString();
  } catch {
    return 'postgres://…';
  }
}

/** Errors that say the server could not be reached or the connection was lost, not that a statement was wrong. */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (isConnectionFailure(code)) return true;
    // connection_exception; admin_shutdown, crash_shutdown, cannot_connect_now; too_many_connections
    if (code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|not queryable/i.test(
    err.message,
  );
}

/** The StoreUnavailable of a connection error. */
export function unavailable(where: string, err: unknown): StoreUnavailable {
  const message = err instanceof Error ? err.message || (err as { code?: string }).code || err.name : String(err);
  return new StoreUnavailable(`the database ${where} is unreachable: ${message}`, { cause: err });
}
