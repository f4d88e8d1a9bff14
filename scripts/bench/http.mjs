// Plain node:http helpers. node:http (not fetch) because fetch adds Accept-Encoding by itself and
// decompresses: the bench needs identity requests to be identity and gzip bytes to stay raw.
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

const HOST = '127.0.0.1'; // all bench traffic stays on loopback

/** A port that was free a moment ago (the tiny race with other programs is acceptable here). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * GET with timing from the request to the last body byte. `agent` lets callers reuse one keep-alive
 * connection, so a timed request does not also pay for a TCP handshake.
 */
export function get(port, path, { headers = {}, agent, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get({ host: HOST, port, path, headers, agent: agent ?? false, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks),
          ms: performance.now() - t0,
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

export const keepAliveAgent = () => new http.Agent({ keepAlive: true, maxSockets: 1 });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls GET /readyz every `everyMs` until a 200; returns the ms since `t0` and the parsed body.
 * Fails early when the server process exits, so a broken start does not wait for the timeout.
 */
export async function waitReady(proc, port, t0, { everyMs = 20, timeoutMs = 120_000 } = {}) {
  while (performance.now() - t0 < timeoutMs) {
    if (proc.exited)
      throw new Error(
        `${proc.name} exited with ${proc.code ?? proc.signal} before it was ready:\n${proc.output.trim()}`,
      );
    try {
      const res = await get(port, '/readyz', { timeoutMs: 5000 });
      if (res.status === 200) return { ms: performance.now() - t0, body: JSON.parse(res.body.toString()) };
    } catch {
      // not listening yet
    }
    await sleep(everyMs);
  }
  throw new Error(`${proc.name}: /readyz not 200 within ${timeoutMs / 1000} s:\n${proc.output.trim()}`);
}
