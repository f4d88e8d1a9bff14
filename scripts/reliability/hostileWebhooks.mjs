// Webhooks under attack, for the hostile fleet (hostileFleet.mjs): a delivery captured on its way and
// sent again, and subscriptions that would make the server call what only it can reach.
//
// Replays: a receiver checks each delivery with the very function docs/user/webhooks.md gives
// (`signedByCincy`, read out of the guide) and keeps the event ids it took, as the guide says. One real
// delivery is captured, then sent to the receiver again as an attacker would: as it was, once its five
// minutes are over on the receiver's clock; with a fresh `t` in the header; with a body changed; as it
// was, within the five minutes. None may be taken.
//
// Redirects and inner addresses: on a server that may deliver to loopback (--webhook-allow-loopback, as
// a test needs), a receiver answering 307 and 302 to a canary must not bring the canary any request; on a
// server as shipped (no flag), subscriptions to 127.0.0.1, to ::ffff:127.0.0.1, to `localhost` and to the
// cloud metadata address must bring the canary nothing either.
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mintToken } from '../bench/admin.mjs';
import { stop } from '../bench/procs.mjs';
import { startServe } from './server.mjs';

const SECRET = 'a-receiver-secret-of-thirty-two-bytes!';

/** An HTTP server on a free port of 127.0.0.1 answering with `handle`; every request it got, kept. */
async function receiver(handle) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(r);
      handle(r, res);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    port: server.address().port,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The guide's verifying function, read out of docs/user/webhooks.md and loaded as it is written. */
async function guideVerifier(root, workDir) {
  const guide = readFileSync(join(root, 'docs', 'user', 'webhooks.md'), 'utf8');
  const block = /```js\n([\s\S]*?function signedByCincy[\s\S]*?)```/.exec(guide);
  if (!block) throw new Error('docs/user/webhooks.md: no js block with signedByCincy');
  const file = join(workDir, 'signedByCincy.mjs');
  writeFileSync(file, `${block[1]}\nexport { signedByCincy };\n`);
  return (await import(pathToFileURL(file).href)).signedByCincy;
}

const api = (url, token) => async (method, path, body) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body && { 'content-type': 'application/json' }) },
    ...(body && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
};

const waitFor = async (what, check, ms = 20_000) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not within ${ms / 1000} s`);
};

/** Subscribes to `url` and queues a ping; the webhook's id. */
async function pinged(call, url) {
  const hook = await call('POST', '/api/v1/webhooks', { url, kinds: ['risk-declared'], secret: SECRET });
  await call('POST', `/api/v1/webhooks/${hook.id}/ping`);
  return hook.id;
}

/** The attacks: [name, run] pairs, each run resolving to { held, result }. `shipped`: the server as shipped. */
export function webhookAttacks({ cli, graphData, workDir, root, shipped }) {
  return [
    [
      'a captured delivery sent again: late, with a new t, with another body, and at once',
      async () => {
        const signedByCincy = await guideVerifier(root, workDir);
        const seen = new Set();
        const taken = [];
        const hook = await receiver((r, res) => {
          // The receiver's clock: its own, unless this suite's replay says to read it six minutes on.
          const now = r.headers['x-receiver-clock'] ? Number(r.headers['x-receiver-clock']) : undefined;
          const ok = signedByCincy(r.body, SECRET, r.headers['x-cincy-signature'], now);
          const id = ok && JSON.parse(r.body).id;
          const fresh = ok && !seen.has(id);
          if (fresh) seen.add(id);
          taken.push(fresh);
          res.writeHead(ok ? 200 : 401).end();
        });
        const server = await startServe({ cli, graphData, workDir, extra: ['--webhook-allow-loopback'] });
        try {
          const token = await mintToken(cli, join(server.dir, 'secret'), 'webhooks:write');
          await pinged(api(server.url, token), hook.url);
          await waitFor('the ping delivered', () => taken.includes(true));
          const first = hook.requests[taken.indexOf(true)];
          const signature = first.headers['x-cincy-signature'];
          const t = Number(/^t=(\d+),/.exec(signature)[1]);
          /** Sends `body` with `sig` as an attacker would; whether the receiver took it. */
          const replay = async (body, sig, receiverClock) => {
            const before = taken.length;
            const headers = { 'content-type': 'application/json', 'x-cincy-signature': sig };
            if (receiverClock !== undefined) headers['x-receiver-clock'] = String(receiverClock);
            await fetch(`${hook.url}/`, { method: 'POST', headers, body }).then((res) => res.arrayBuffer());
            return taken[before];
          };
          const replays = {
            'six minutes late': await replay(first.body, signature, t + 6 * 60),
            'with a new t': await replay(first.body, signature.replace(/^t=\d+/, `t=${Math.floor(Date.now() / 1000)}`)),
            'with another body': await replay(Buffer.concat([first.body, Buffer.from(' ')]), signature),
            'at once, as it was': await replay(first.body, signature),
          };
          const accepted = Object.values(replays).filter(Boolean).length;
          return {
            held: accepted === 0,
            result: `replays taken: ${accepted} of 4 (${Object.entries(replays)
              .map(([k, v]) => `${k}: ${v ? '**taken**' : 'refused'}`)
              .join('; ')})`,
          };
        } finally {
          await hook.close();
          if (!server.proc.exited) await stop(server.proc);
        }
      },
    ],
    [
      'subscriptions that redirect to, or name, what only the server reaches',
      async () => {
        const canary = await receiver((_, res) => res.writeHead(200).end());
        const redirecting = await receiver((r, res) =>
          res
            .writeHead(r.url.includes('metadata') ? 302 : 307, {
              location: r.url.includes('metadata') ? 'http://169.254.169.254/latest/meta-data/' : `${canary.url}/`,
            })
            .end(),
        );
        const loopback = await startServe({ cli, graphData, workDir, extra: ['--webhook-allow-loopback'] });
        try {
          const onLoopback = api(loopback.url, await mintToken(cli, join(loopback.dir, 'secret'), 'webhooks:write'));
          const redirects = [
            await pinged(onLoopback, `${redirecting.url}/`),
            await pinged(onLoopback, `${redirecting.url}/metadata`),
          ];
          const onShipped = api(shipped.url, await mintToken(cli, join(shipped.dir, 'secret'), 'webhooks:write'));
          const inner = [
            `http://127.0.0.1:${canary.port}/`,
            `http://[::ffff:127.0.0.1]:${canary.port}/`,
            `http://localhost:${canary.port}/`,
            'http://169.254.169.254/latest/meta-data/',
          ];
          const refused = [];
          for (const url of inner) refused.push(await pinged(onShipped, url));
          const failed = async (call, id) => {
            const w = await call('GET', `/api/v1/webhooks/${id}`);
            return w.deliveries.lastError && w.deliveries.delivered === 0 ? w.deliveries.lastError : undefined;
          };
          const errors = [];
          for (const id of redirects) errors.push(await waitFor('a redirect failed', () => failed(onLoopback, id)));
          for (const id of refused) errors.push(await waitFor('an inner address refused', () => failed(onShipped, id)));
          for (const id of refused) await onShipped('DELETE', `/api/v1/webhooks/${id}`);
          return {
            held: canary.requests.length === 0 && redirecting.requests.length >= 2,
            result:
              `requests to the canary: ${canary.requests.length}; ${redirecting.requests.length} to the redirecting ` +
              `receiver; why they failed: ${[...new Set(errors.map((e) => e.slice(0, 60)))].join(' / ')}`,
          };
        } finally {
          await canary.close();
          await redirecting.close();
          if (!loopback.proc.exited) await stop(loopback.proc);
        }
      },
    ],
  ];
}
