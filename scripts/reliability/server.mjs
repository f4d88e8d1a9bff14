// A `cincy serve` for one scenario of the reliability suite: its own folder, database file, admin
// secret and free port on 127.0.0.1; stopped (or killed) by the scenario.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort, waitReady } from '../bench/http.mjs';
import { writeAdminSecret, mintToken } from '../bench/admin.mjs';
import { start } from '../bench/procs.mjs';

/** Starts a server; `dir` and `db` may be given to restart on the same database. */
export async function startServe({ cli, graphData, workDir, dir, extra = [] }) {
  dir ??= mkdtempSync(join(workDir, 'serve-'));
  const secret = writeAdminSecret(dir);
  const port = await freePort();
  const args = ['serve', '--graph-data', graphData, '--db', join(dir, 'cincy.db'), '--host', '127.0.0.1'];
  args.push('--port', String(port), '--log-level', 'warn', '--admin-jwt-secret-file', secret, ...extra);
  const proc = start('cincy serve', cli, args);
  await waitReady(proc, port, performance.now());
  return { proc, port, dir, url: `http://127.0.0.1:${port}` };
}

export function adminToken(cli, dir, scope = 'releases:write,channels:write,risks:write') {
  return mintToken(cli, join(dir, 'secret'), scope);
}

/** The largest amd64 channel the server serves, as a /graph path. */
export async function largestChannelPath(url) {
  const catalog = await (await fetch(`${url}/api/v1/catalog`)).json();
  const largest = catalog.channels.reduce((a, b) => ((b.releases.amd64 ?? 0) > (a.releases.amd64 ?? 0) ? b : a));
  return `/graph?channel=${encodeURIComponent(largest.name)}&arch=amd64`;
}
