// Slow clients: hundreds of connections send their headers a byte at a time. Requests from other
// clients must all be answered meanwhile, and SIGTERM must end the server within its shutdown
// timeout although the slow connections are still open.
import net from 'node:net';
import { startServe, largestChannelPath } from './server.mjs';

const SLOW = 300;
const SHUTDOWN_S = 3;

export async function slowClients({ cli, graphData, workDir, log }) {
  const server = await startServe({ cli, graphData, workDir, extra: ['--shutdown-timeout', String(SHUTDOWN_S)] });
  const sockets = [];
  try {
    const path = await largestChannelPath(server.url);
    for (let i = 0; i < SLOW; i++) {
      const s = net.connect(server.port, '127.0.0.1');
      s.on('error', () => {});
      s.write('GET /graph?channel=x HTTP/1.1\r\nHost: a\r\n');
      sockets.push(s);
    }
    const drip = setInterval(() => sockets.forEach((s) => s.writable && s.write('X')), 1000);
    log(`slow clients: ${SLOW} connections sending a byte a second`);
    let ok = 0;
    const tries = 100;
    for (let i = 0; i < tries; i++) {
      const res = await fetch(`${server.url}${path}`).catch(() => undefined);
      if (res?.status === 200) ok += 1;
      await res?.arrayBuffer();
    }
    const t0 = Date.now();
    server.proc.child.kill('SIGTERM');
    await server.proc.done;
    const exitS = (Date.now() - t0) / 1000;
    clearInterval(drip);
    return {
      scenario: `${SLOW} slow clients sending headers a byte a second; then SIGTERM`,
      tried: `${tries} requests from a normal client`,
      held: ok === tries && exitS <= SHUTDOWN_S + 2,
      detail: `${ok}/${tries} answered 200; exited ${exitS.toFixed(1)} s after SIGTERM (--shutdown-timeout ${SHUTDOWN_S})`,
    };
  } finally {
    sockets.forEach((s) => s.destroy());
    if (!server.proc.exited) server.proc.child.kill('SIGKILL');
    await server.proc.done;
  }
}
