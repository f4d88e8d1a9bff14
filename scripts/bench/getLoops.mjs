// GETs in loops, in a process of its own (so that handling their answers does not delay the requests
// the bench times): `node getLoops.mjs PORT SECONDS SPEC…`, each SPEC a JSON {paths, headers?} run as one
// loop on a keep-alive connection, taking its paths in turn. Prints the answers by route and status.
import { get, keepAliveAgent } from './http.mjs';
import { performance } from 'node:perf_hooks';

const [port, seconds, ...specs] = process.argv.slice(2);
const until = performance.now() + Number(seconds) * 1000;
const statuses = {};
await Promise.all(
  specs.map(async (text) => {
    const { paths, headers = {} } = JSON.parse(text);
    const agent = keepAliveAgent();
    for (let i = 0; performance.now() < until; i++) {
      const p = paths[i % paths.length];
      const res = await get(Number(port), p, { headers, agent, timeoutMs: 60_000 });
      const key = `${p.split('?')[0]} ${res.status}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    agent.destroy();
  }),
);
console.log(JSON.stringify(statuses));
