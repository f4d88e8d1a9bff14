// The soak: wrk at full speed on the largest cached channel for a while, the server's resident set
// sampled every second. Held when nothing failed and the memory of the second half stays within
// 10% (+16 MB) of the first half's: a leak grows the second half, garbage collection does not.
import { readFileSync } from 'node:fs';
import { run } from '../bench/procs.mjs';
import { largestChannelPath, startServe } from './server.mjs';

const rssMb = (pid) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

export async function soak({ cli, graphData, workDir, seconds, log }) {
  const server = await startServe({ cli, graphData, workDir });
  try {
    const path = await largestChannelPath(server.url);
    await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'gzip' } }); // cached from now on
    const samples = [];
    const timer = setInterval(() => samples.push(rssMb(server.proc.pid)), 1000);
    log(`soak: wrk for ${seconds} s on ${path}`);
    const args = [
      '-t2',
      '-c64',
      `-d${seconds}s`,
      '--timeout',
      '10s',
      '-H',
      'Accept: application/json',
      '-H',
      'Accept-Encoding: gzip',
    ];
    const out = await run('wrk (soak)', 'wrk', [...args, `${server.url}${path}`], { timeoutMs: (seconds + 60) * 1000 });
    clearInterval(timer);
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
    const socketErrors = /Socket errors:\s+(.*)/.exec(out)?.[1]?.trim();
    const half = Math.floor(samples.length / 2);
    const first = Math.max(...samples.slice(0, half));
    const second = Math.max(...samples.slice(half));
    const flat = second <= first * 1.1 + 16;
    return {
      scenario: `soak: wrk -c64 on /graph for ${seconds} s, RSS sampled every second`,
      tried: `${requests} requests`,
      held: non2xx === 0 && !socketErrors && flat && requests > 0,
      detail:
        `RSS max ${first.toFixed(0)} MB in the first half, ${second.toFixed(0)} MB in the second ` +
        `(end ${samples.at(-1)?.toFixed(0)} MB); ${non2xx} non-2xx${socketErrors ? `; socket errors: ${socketErrors}` : ''}`,
    };
  } finally {
    server.proc.child.kill('SIGKILL');
    await server.proc.done;
  }
}
