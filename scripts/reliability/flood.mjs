// Body floods while /graph is measured: clients without a token post 8 MiB bodies to a write route
// and to unknown paths in a loop. /graph's p99, asked one request at a time on a keep-alive
// connection, must stay within 10 times its p99 without the flood.
import http from 'node:http';
import { get, keepAliveAgent } from '../bench/http.mjs';
import { percentile } from '../bench/report.mjs';
import { largestChannelPath, startServe } from './server.mjs';

const FLOODERS = 4;
const BODY = Buffer.alloc(8 * 1024 * 1024, 'x');

async function latencies(port, path, ms) {
  const agent = keepAliveAgent();
  const out = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const res = await get(port, path, { headers: { accept: 'application/json', 'accept-encoding': 'gzip' }, agent });
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}`);
    out.push(res.ms);
  }
  agent.destroy();
  return out;
}

/** Posts the body again and again until `stopped`; counts the answers by status. */
async function flooder(port, path, stopped, statuses) {
  while (!stopped.value) {
    const status = await new Promise((resolve) => {
      const req = http.request(
        { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', () => resolve('reset'));
      req.end(BODY);
    });
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
}

export async function flood({ cli, graphData, workDir, seconds, log }) {
  const server = await startServe({ cli, graphData, workDir });
  try {
    const path = await largestChannelPath(server.url);
    await latencies(server.port, path, 1000); // warm
    const quiet = await latencies(server.port, path, seconds * 1000);
    const stopped = { value: false };
    const statuses = new Map();
    const targets = ['/api/v1/releases', '/no/such/path'];
    const flooders = Array.from({ length: FLOODERS }, (_, i) =>
      flooder(server.port, targets[i % 2], stopped, statuses),
    );
    log(`flood: ${FLOODERS} clients posting 8 MiB bodies for ${seconds} s`);
    const loud = await latencies(server.port, path, seconds * 1000);
    stopped.value = true;
    await Promise.all(flooders);
    const [p99q, p99f] = [percentile(quiet, 99), percentile(loud, 99)];
    const answered = [...statuses].map(([s, n]) => `${n}× ${s}`).join(', ');
    return {
      scenario: `8 MiB bodies without a token from ${FLOODERS} clients (a write route, an unknown path) while /graph is measured`,
      tried: `${[...statuses.values()].reduce((a, b) => a + b, 0)} bodies`,
      // The baseline counts as at least 1 ms: below that, one scheduler tick of a 2-core machine is the p99.
      held: p99f <= 10 * Math.max(p99q, 1) && !statuses.has(500),
      detail:
        `/graph p99 ${p99q.toFixed(2)} ms without, ${p99f.toFixed(2)} ms during (×${(p99f / p99q).toFixed(1)}; at most 10× the baseline, taken as at least 1 ms); ` +
        `flood answered ${answered}`,
    };
  } finally {
    server.proc.child.kill('SIGKILL');
    await server.proc.done;
  }
}
