// A real PostgreSQL (Debian's package) of the test's own: a cluster made with initdb in a temporary
// folder and a server on a free port, never the system service, so test files run side by side. As
// root, the server runs as the package's `postgres` user (PostgreSQL refuses to run as root).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './prometheus.js';

/** The newest PostgreSQL of Debian's layout (/usr/lib/postgresql/<major>/bin), if installed. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((d) => /^\d+$/.test(d) && existsSync(join(root, d, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] && join(root, majors[0], 'bin');
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

export interface PostgresServer {
  port: number;
  /** A database of its own for one test: postgres://postgres@127.0.0.1:<port>/<name>. */
  createDatabase(): Promise<string>;
  /** Stops the server (a fast shutdown: what was committed is on disk). */
  stop(): Promise<void>;
  /** Starts it again, on the same folder and port. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/** Who the server runs as: the `postgres` user when this runs as root. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPostgres(cleanup: { add(f: () => unknown): void }): Promise<PostgresServer> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed');
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'cincy-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const init = spawnSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'],
    { encoding: 'utf8', ...user },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  let child: ChildProcess | undefined;
  let databases = 0;

  const start = async (): Promise<void> => {
    let log = '';
    const server = spawn(
      join(bin, 'postgres'),
      ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`],
      { stdio: ['ignore', 'ignore', 'pipe'], ...user },
    );
    server.stderr!.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
    child = server;
    for (let i = 0; ; i++) {
      if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}: ${log}`);
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => {});
        if (i > 300) throw new Error(`postgres did not accept connections on ${port}: ${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };

  const stop = async (): Promise<void> => {
    const server = child;
    child = undefined;
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGINT'); // fast shutdown: sessions are ended, what was committed stays
    await exited;
  };

  await start();
  const close = async (): Promise<void> => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  };
  cleanup.add(close);
  return {
    port,
    start,
    stop,
    close,
    async createDatabase() {
      const name = `cincy_${process.pid}_${++databases}`;
      const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
  };
}

/**
 * One PostgreSQL server for the tests of a file, started before them when PostgreSQL is installed
 * (a loud skip otherwise, a failure under CI=true); `database()` gives each test a database of its own.
 */
export function usePostgres(): { available: boolean; server(): PostgresServer; database(): Promise<string> } {
  const available = postgresAvailable();
  let server: PostgresServer | undefined;
  const steps: Array<() => unknown> = [];
  beforeAll(async () => {
    if (available) server = await startPostgres({ add: (f) => void steps.push(f) });
  });
  afterAll(async () => {
    for (const f of steps.reverse()) await f();
  });
  const running = (): PostgresServer => {
    if (!server) throw new Error('PostgreSQL was not started (not installed?)');
    return server;
  };
  return { available, server: running, database: () => running().createDatabase() };
}
