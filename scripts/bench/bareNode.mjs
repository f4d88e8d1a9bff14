// The Node limit for cached throughput: a bare node:http server that answers every request with the
// status, headers and body cincy gave for the benched request. Whatever cincy spends beyond it is its
// own request path, not Node's HTTP stack. Two of them:
//   as cincy — the node flags of cincy's launcher (bin/cincy.js) and cincy's own connection limits
//              (the server comes from dist/server/connectionLimits.js, with serve's defaults): the
//              target is measured against this one;
//   plain    — Node's defaults (but the keep-alive settings that make the same Keep-Alive header).
//
// Run as a child process of the bench (its own process, like cincy):
//   node [flags] bareNode.mjs PORT RESPONSE.json cincy|plain
// where RESPONSE.json is {status, headers: [[name, value]…], bodyFile, keepAliveTimeout, maxRequestsPerSocket}.
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { freePort, get, keepAliveAgent, waitReady } from './http.mjs';
import { start } from './procs.mjs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LAUNCHER = join(ROOT, 'bin', 'cincy.js');

/** Node writes these itself for every answer on a keep-alive connection. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/** The node flags of cincy's launcher, from its `#!/usr/bin/env -S node …` line. */
export function launcherFlags() {
  const shebang = readFileSync(LAUNCHER, 'utf8').split('\n')[0];
  const m = /\bnode((?:\s+--\S+)*)\s*$/.exec(shebang);
  if (!m) throw new Error(`${LAUNCHER}: no node flags found in ${shebang}`);
  return m[1].trim().split(/\s+/).filter(Boolean);
}

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

/** Starts a bare server (`mode` cincy or plain) in its own node process on a free port. */
export async function startBareNode(dir, spec, body, mode) {
  const bodyFile = join(dir, 'body');
  const specFile = join(dir, 'response.json');
  writeFileSync(bodyFile, body);
  writeFileSync(specFile, JSON.stringify({ ...spec, bodyFile }));
  const port = await freePort();
  const flags = mode === 'cincy' ? launcherFlags() : [];
  const script = fileURLToPath(import.meta.url);
  const proc = start(`bare node:http (${mode})`, process.execPath, [...flags, script, String(port), specFile, mode]);
  await waitReady(proc, port, performance.now(), { timeoutMs: 10_000 });
  return { proc, port, flags };
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

async function serveForever(port, specFile, mode) {
  const spec = JSON.parse(readFileSync(specFile, 'utf8'));
  const body = readFileSync(spec.bodyFile);
  const ready = Buffer.from('{"status":"ready"}');
  const headers = spec.headers.flat();
  // waitReady polls /readyz; every other request gets the benched answer.
  const answer = (req, res) => {
    if (req.url === '/readyz') return res.writeHead(200, { 'content-type': 'application/json' }).end(ready);
    res.writeHead(spec.status, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  let server;
  if (mode === 'cincy') {
    const url = (file) => pathToFileURL(join(ROOT, 'dist', file)).href;
    const { createLimitedServer } = await import(url('server/connectionLimits.js'));
    const { DEFAULT_HTTP_LIMITS } = await import(url('settings.js'));
    server = createLimitedServer(DEFAULT_HTTP_LIMITS, answer);
    server.maxConnections = DEFAULT_HTTP_LIMITS.maxConnections;
  } else {
    server = createServer({ keepAliveTimeout: spec.keepAliveTimeout }, answer);
    server.maxRequestsPerSocket = spec.maxRequestsPerSocket;
  }
  server.listen(port, '127.0.0.1');
  process.once('SIGTERM', () => process.exit(0));
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await serveForever(Number(process.argv[2]), process.argv[3], process.argv[4]);
