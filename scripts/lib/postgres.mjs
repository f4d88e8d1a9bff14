// A PostgreSQL server of one's own (Debian's package), for the tests and the bench: a cluster made
// with initdb in a temporary folder and a server on a free port, never the system service, so several
// run side by side. As root, the server runs as the package's `postgres` user (PostgreSQL refuses to
// run as root). The types are in postgres.d.mts.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../bench/http.mjs';

/** The newest PostgreSQL of Debian's layout (/usr/lib/postgresql/<major>/bin), if installed. */
export function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((d) => /^\d+$/.test(d) && existsSync(join(root, d, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] && join(root, majors[0], 'bin');
}

/** Who the server runs as: the `postgres` user when this runs as root. */
function runAs() {
  if (process.getuid?.() !== 0) return {};
  const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Sends `signal` to `pid`; a process that has exited meanwhile (ESRCH) is no error. */
function signalIfAlive(pid, signal) {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if (err?.code !== 'ESRCH') throw err;
  }
}

/** A client of the server at `port` as its superuser, on its maintenance database. */
const adminClient = (port) => new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });

let databases = 0;

/** A new database on the server at `port`, named uniquely in this process; its postgres:// URL. */
export async function createDatabaseOn(port) {
  const name = `cincy_${process.pid}_${++databases}`;
  const client = adminClient(port);
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return `postgres://postgres@127.0.0.1:${port}/${name}`;
}

/** Makes a cluster and starts its server; see postgres.d.mts for what it returns. */
export async function startPostgres() {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'cincy-pg-'));
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const initdb = ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'];
  const init = spawnSync(join(bin, 'initdb'), initdb, { encoding: 'utf8', ...user });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  let child;

  const start = async () => {
    let log = '';
    // Room for every test file's servers at once where one cluster serves a whole test run.
    const args = ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'];
    args.push('-c', `unix_socket_directories=${dir}`);
    const server = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'ignore', 'pipe'], ...user });
    server.stderr.on('data', (b) => (log = (log + b.toString()).slice(-4000)));
    child = server;
    for (let i = 0; ; i++) {
      if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}: ${log}`);
      const client = adminClient(port);
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

  const stop = async () => {
    const server = child;
    child = undefined;
    if (!server || server.exitCode !== null || server.signalCode !== null) return; // exited, or killed
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGINT'); // fast shutdown: sessions are ended, what was committed stays
    await exited;
  };

  /** Sends `signal` to the server and every process it started (its backends and workers). */
  const signalAll = (signal) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const pids = [child.pid];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === child.pid) pids.push(Number(name));
      } catch {
        // gone meanwhile
      }
    }
    for (const pid of pids) signalIfAlive(pid, signal);
  };

  await start();
  return {
    port,
    start,
    stop,
    pause: () => signalAll('SIGSTOP'),
    resume: () => signalAll('SIGCONT'),
    async close() {
      signalAll('SIGCONT');
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    createDatabase: () => createDatabaseOn(port),
  };
}
