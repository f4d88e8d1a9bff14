// The Node limit for cached throughput: a bare node:http server that answers every request with the
// status, headers and body cincy gave for the benched request, over keep-alive with cincy's connection
// settings. Whatever cincy spends beyond this is its own request path, not Node's HTTP stack.
//
// Run as a child process of the bench (its own process, like cincy):
//   node bareNode.mjs PORT RESPONSE.json
// where RESPONSE.json is {status, headers: {name: value}, bodyFile, keepAliveTimeout, maxRequestsPerSocket}.
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, get, keepAliveAgent, waitReady } from './http.mjs';
import { start } from './procs.mjs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** Node writes these itself for every answer on a keep-alive connection. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** cincy's `Keep-Alive: timeout=5, max=1000` as the server settings that make Node write it. */
export function keepAliveSettings(header) {
  const timeout = /timeout=(\d+)/.exec(header ?? '');
  const max = /max=(\d+)/.exec(header ?? '');
  if (!timeout) throw new Error(`cincy answered no Keep-Alive timeout (Keep-Alive: ${header})`);
  return { keepAliveTimeout: Number(timeout[1]) * 1000, maxRequestsPerSocket: max ? Number(max[1]) : 0 };
}

/** The bare server's answer, taken from one of cincy's: its status, headers and body, exactly. */
export function responseSpec(res, { keepAliveTimeout, maxRequestsPerSocket }) {
  const headers = Object.entries(res.headers).filter(([name]) => !PER_CONNECTION.has(name));
  return { status: res.status, headers, keepAliveTimeout, maxRequestsPerSocket };
}

/** Starts the bare server in its own node process on a free port; returns the process and the port. */
export async function startBareNode(dir, spec, body) {
  const bodyFile = join(dir, 'body');
  const specFile = join(dir, 'response.json');
  writeFileSync(bodyFile, body);
  writeFileSync(specFile, JSON.stringify({ ...spec, bodyFile }));
  const port = await freePort();
  const proc = start('bare node:http', process.execPath, [fileURLToPath(import.meta.url), String(port), specFile]);
  await waitReady(proc, port, performance.now(), { timeoutMs: 10_000 });
  return { proc, port };
}

/**
 * Checks that the bare server answers `path` as cincy did (on a keep-alive connection, as wrk asks):
 * the same status, headers (but Date) and bytes.
 */
export async function checkSameAnswer(port, path, requestHeaders, cincy) {
  const agent = keepAliveAgent();
  const res = await get(port, path, { headers: requestHeaders, agent });
  agent.destroy();
  const strip = (h) =>
    JSON.stringify(
      Object.entries(h)
        .filter(([n]) => n !== 'date')
        .sort(([a], [b]) => a.localeCompare(b)),
    );
  if (res.status !== cincy.status) throw new Error(`bare node: GET ${path} → ${res.status}, cincy ${cincy.status}`);
  if (strip(res.headers) !== strip(cincy.headers))
    throw new Error(`bare node: headers ${strip(res.headers)} differ from cincy's ${strip(cincy.headers)}`);
  if (!res.body.equals(cincy.body))
    throw new Error(`bare node: served ${res.body.length} bytes, not the ${cincy.body.length} cincy served`);
}

function serveForever(port, specFile) {
  const spec = JSON.parse(readFileSync(specFile, 'utf8'));
  const body = readFileSync(spec.bodyFile);
  const ready = Buffer.from('{"status":"ready"}');
  const server = createServer({ keepAliveTimeout: spec.keepAliveTimeout, requestTimeout: 30_000 }, (req, res) => {
    // waitReady polls /readyz; every other request gets the benched answer.
    if (req.url === '/readyz') return res.writeHead(200, { 'content-type': 'application/json' }).end(ready);
    res.writeHead(spec.status, spec.headers.flat());
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  server.maxRequestsPerSocket = spec.maxRequestsPerSocket;
  server.listen(port, '127.0.0.1');
  process.once('SIGTERM', () => process.exit(0));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serveForever(Number(process.argv[2]), process.argv[3]);
