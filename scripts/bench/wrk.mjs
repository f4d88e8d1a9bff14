// wrk runs and the parsing of its text report.
import { run } from './procs.mjs';

/** One fixed load shape for both servers, so their numbers compare. */
export const WRK_ARGS = [
  '-t2',
  '-c64',
  '-d10s',
  '--latency',
  '-H',
  'Accept: application/json',
  '-H',
  'Accept-Encoding: gzip',
];

/** `script`: a Lua script that makes each request (wrk -s), with `scriptArgs` after `--`. */
export async function runWrk(name, url, { script, scriptArgs = [], env } = {}) {
  const lua = script ? ['-s', script] : [];
  const after = scriptArgs.length ? ['--', ...scriptArgs] : [];
  const out = await run(`wrk (${name})`, 'wrk', [...WRK_ARGS, ...lua, url, ...after], {
    timeoutMs: 60_000,
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  return parseWrk(out);
}

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `1.23ms` → 1.23; wrk prints latencies with the unit that keeps the number small. */
function toMs(text) {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  if (!m) throw new Error(`wrk: unreadable latency '${text}'`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

function parseWrk(out) {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p99 = /^\s*99%\s+(\S+)/m.exec(out);
  const p50 = /^\s*50%\s+(\S+)/m.exec(out);
  if (!rps || !p99 || !p50) throw new Error(`wrk: unexpected report:\n${out}`);
  const requests = /(\d+) requests in/.exec(out);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const socketErrors = /Socket errors:\s+(.*)/.exec(out);
  return {
    rps: Number(rps[1]),
    p50Ms: toMs(p50[1]),
    p99Ms: toMs(p99[1]),
    requests: requests ? Number(requests[1]) : undefined,
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: socketErrors ? socketErrors[1].trim() : undefined,
  };
}

/** Anything that makes a req/s figure suspect, for the table's value column. */
export function wrkCaveats(r) {
  const notes = [];
  if (r.non2xx) notes.push(`${r.non2xx} non-2xx`);
  if (r.socketErrors) notes.push(`socket errors: ${r.socketErrors}`);
  return notes.length ? ` (${notes.join('; ')})` : '';
}
