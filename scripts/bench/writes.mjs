// The writes part of the bench: how long an admin write takes to be served, and what writes do to
// /graph meanwhile. One `cincy serve` per input, with an admin secret; writes are channel PUTs, one
// after another, each followed by a GET that must show it. A reader keeps asking for the largest
// cached channel on its own keep-alive connection, first without writes and then during them.
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort, get, keepAliveAgent, waitReady } from './http.mjs';
import { writeAdminSecret, mintToken } from './admin.mjs';
import { start, stop } from './procs.mjs';
import { percentile } from './report.mjs';

const WRITES = 40;
const BASELINE_MS = 3000;

function put(port, path, body, token, agent) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const data = Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'PUT',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': data.length,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, body: Buffer.concat(chunks), ms: performance.now() - t0 }),
        );
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Latencies of GETs of `path`, one at a time, until `stop()` resolves. */
function reader(port, path) {
  const agent = keepAliveAgent();
  const ms = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const res = await get(port, path, { headers: { accept: 'application/json', 'accept-encoding': 'gzip' }, agent });
      if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}`);
      ms.push(res.ms);
    }
    agent.destroy();
  })();
  return {
    async stop() {
      running = false;
      await done;
      return ms;
    },
  };
}

/**
 * `input`: { label, graphData, visibleTarget }; the reader asks for the largest amd64 channel, and
 * the writes put its versions into channels of their own.
 * Adds rows to `report`: write → visible p50 and max, and /graph p50/p99/max without and during writes.
 */
export async function benchWrites(report, input, { cli, workDir, log }) {
  const { label } = input;
  const dir = mkdtempSync(join(workDir, 'writes-'));
  const secret = writeAdminSecret(dir);
  const token = await mintToken(cli, secret, 'channels:write');
  const port = await freePort();
  const args = ['serve', '--graph-data', input.graphData, '--db', join(dir, 'cincy.db')];
  args.push('--host', '127.0.0.1', '--port', String(port), '--log-level', 'warn', '--admin-jwt-secret-file', secret);
  const proc = start('cincy serve (writes)', cli, args);
  try {
    await waitReady(proc, port, performance.now());
    const catalog = JSON.parse((await get(port, '/api/v1/catalog')).body.toString());
    const largest = catalog.channels.reduce((a, b) => ((b.releases.amd64 ?? 0) > (a.releases.amd64 ?? 0) ? b : a));
    const path = `/graph?channel=${encodeURIComponent(largest.name)}&arch=amd64`;
    const first = await get(port, path, { headers: { accept: 'application/json' } }); // now cached
    const versions = JSON.parse(first.body.toString()).nodes.map((n) => n.version);

    const quiet = reader(port, path);
    await new Promise((r) => setTimeout(r, BASELINE_MS));
    const without = await quiet.stop();

    const busy = reader(port, path);
    const agent = keepAliveAgent();
    const visible = [];
    for (let i = 0; i < WRITES; i++) {
      const name = `bench-write-${i}`;
      const version = versions[i % versions.length];
      const t0 = performance.now();
      const res = await put(port, `/api/v1/channels/${name}`, { versions: [version] }, token, agent);
      if (res.status !== 201) throw new Error(`PUT ${name} → ${res.status}: ${res.body.toString().slice(0, 200)}`);
      const seen = await get(port, `/graph?channel=${name}&arch=amd64`, {
        headers: { accept: 'application/json' },
        agent,
      });
      const nodes = JSON.parse(seen.body.toString()).nodes.map((n) => n.version);
      if (!nodes.includes(version)) throw new Error(`${name}: ${version} not served after its write was answered`);
      visible.push(performance.now() - t0);
    }
    agent.destroy();
    const during = await busy.stop();
    log(
      `[${label}] ${WRITES} writes: visible p50 ${percentile(visible, 50).toFixed(1)} ms, max ${Math.max(...visible).toFixed(1)} ms`,
    );

    const ms = { unit: 'ms', digits: 1 };
    report.add('admin write → visible in /graph, p50', label, percentile(visible, 50), {
      ...ms,
      target: input.visibleTarget,
    });
    report.add('admin write → visible in /graph, max', label, Math.max(...visible), {
      ...ms,
      target: input.visibleTarget,
    });
    for (const [when, values] of [
      ['no writes', without],
      [`${WRITES} writes`, during],
    ]) {
      const row = `/graph (largest channel, cached) p50 / p99 / max, ${when}`;
      const shown = [50, 99].map((p) => percentile(values, p).toFixed(2)).concat(Math.max(...values).toFixed(1));
      report.add(row, label, `${shown.join(' / ')} ms (${values.length} requests)`);
    }
  } finally {
    await stop(proc);
  }
}
