// A real PostgreSQL (Debian's package) of the test file's own (scripts/lib/postgres.mjs: initdb in a
// temporary folder, a server on a free port, never the system service), started before its tests.
import { afterAll, beforeAll } from 'vitest';
import { postgresBin, startPostgres, type PostgresServer } from '../../scripts/lib/postgres.mjs';

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

/**
 * One PostgreSQL server for the tests of a file, started before them when PostgreSQL is installed
 * (a loud skip otherwise, a failure under CI=true); `database()` gives each test a database of its own.
 */
export function usePostgres(): { available: boolean; server(): PostgresServer; database(): Promise<string> } {
  const available = postgresAvailable();
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    if (available) server = await startPostgres();
  });
  afterAll(async () => {
    await server?.close();
  });
  const running = (): PostgresServer => {
    if (!server) throw new Error('PostgreSQL was not started (not installed?)');
    return server;
  };
  return { available, server: running, database: () => running().createDatabase() };
}
