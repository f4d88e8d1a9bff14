// A real PostgreSQL (Debian's package: scripts/lib/postgres.mjs, initdb in a temporary folder, a server on
// a free port, never the system service). The e2e tier starts one for the whole run (global-setup.ts) and
// each test takes a database of its own on it; a file that stops, pauses or ends the server's connections
// wholesale starts a server of its own instead (usePostgres({ own: true })).
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabaseOn, postgresBin, startPostgres, type PostgresServer } from '../../scripts/lib/postgres.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The port of the run's shared PostgreSQL (global-setup.ts), 0 when none was started. */
    sharedPostgresPort: number;
  }
}

/** True when PostgreSQL is here; under CI=true its absence fails, never skips. */
export function postgresAvailable(): boolean {
  if (postgresBin()) return true;
  if (process.env.CI === 'true')
    throw new Error('PostgreSQL is missing (CI=true: nothing may skip; .ci/run installs the postgresql package)');
  console.warn(
    '\n*** SKIPPING tests that need a real PostgreSQL: /usr/lib/postgresql/*/bin/initdb not found (apt-get install postgresql) ***\n',
  );
  return false;
}

interface UsedPostgres {
  available: boolean;
  /** A database of the test's own. */
  database(): Promise<string>;
}

/**
 * PostgreSQL for the tests of a file, when installed (a loud skip otherwise, a failure under CI=true):
 * the run's shared server, or with `own` one started before the file's tests and stopped after them,
 * whose `server()` the file may stop, start, pause and resume.
 */
export function usePostgres(): UsedPostgres;
export function usePostgres(options: { own: true }): UsedPostgres & { server(): PostgresServer };
export function usePostgres(options: { own?: boolean } = {}): UsedPostgres & { server(): PostgresServer } {
  const available = postgresAvailable();
  let server: PostgresServer | undefined;
  let sharedPort = 0;
  beforeAll(async () => {
    if (!available) return;
    sharedPort = options.own ? 0 : inject('sharedPostgresPort');
    // A tier run without the shared server (the service tier) starts one of the file's own.
    if (!sharedPort) server = await startPostgres();
  });
  afterAll(async () => {
    await server?.close();
  });
  const running = (): PostgresServer => {
    if (!server) throw new Error(options.own ? 'PostgreSQL was not started (not installed?)' : 'the server is shared');
    return server;
  };
  return {
    available,
    server: running,
    database: () => (sharedPort ? createDatabaseOn(sharedPort) : running().createDatabase()),
  };
}
