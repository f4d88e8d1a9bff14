// kill -9 in the middle of streams of admin writes: four writers create channels as fast as the
// server answers, the server is killed at a random moment, started again on the same database, and
// every write that was answered 2xx must be there. A write in flight at the kill may or may not be.
import { adminToken, startServe } from './server.mjs';

const WRITERS = 4;

/** Writes until the server is gone; a refusal ends the writer and is returned (never thrown). */
async function writer(url, token, prefix, acknowledged) {
  for (let i = 0; ; i++) {
    const name = `${prefix}-${i}`;
    let res;
    try {
      res = await fetch(`${url}/api/v1/channels/${name}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ versions: [] }),
      });
    } catch {
      return; // the server is gone
    }
    if (res.status < 200 || res.status >= 300)
      return `PUT ${name} → ${res.status}: ${(await res.text()).slice(0, 200)}`;
    acknowledged.push(name);
  }
}

export async function killDuringWrites({ cli, graphData, workDir, rounds, log }) {
  const extra = ['--admin-rate-limit', '100000'];
  let server = await startServe({ cli, graphData, workDir, extra });
  const token = await adminToken(cli, server.dir, 'channels:write');
  let acknowledged = 0;
  let present = 0;
  const lost = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const acked = [];
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(server.url, token, `r${round}-w${w}`, acked));
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 1500));
      server.proc.child.kill('SIGKILL');
      await server.proc.done;
      const refusals = (await Promise.all(writers)).filter(Boolean);
      if (refusals.length) throw new Error(refusals[0]);
      server = await startServe({ cli, graphData, workDir, dir: server.dir, extra });
      for (const name of acked) {
        const res = await fetch(`${server.url}/api/v1/channels/${name}`, { headers: { accept: 'application/json' } });
        if (res.status === 200) present += 1;
        else lost.push(name);
      }
      acknowledged += acked.length;
      log(`kill -9 round ${round + 1}: ${acked.length} acknowledged, ${acked.length - lost.length} present so far`);
    }
  } finally {
    server.proc.child.kill('SIGKILL');
    await server.proc.done;
  }
  return {
    scenario: `kill -9 during admin write streams (${WRITERS} writers), ${rounds} rounds`,
    tried: `${acknowledged} acknowledged writes`,
    held: acknowledged > 0 && lost.length === 0,
    detail: `${present} of ${acknowledged} present after restart${lost.length ? `; lost: ${lost.slice(0, 5).join(', ')}` : ''}`,
  };
}
