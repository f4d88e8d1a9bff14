// A real HTTP webhook receiver on a free port of 127.0.0.1: it checks each delivery's signature as a
// receiver would (verifyWebhookSignature), keeps what it was sent, and answers as the test says (a status,
// after a delay). It can be stopped and started again on the same port, as a receiver that was down.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { sign } from '../../src/app/webhooks/signature.js';

/** How old a signed time a receiver takes, in seconds (docs/user/webhooks.md: five minutes). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Whether `signature` (an X-Cincy-Signature value) is that of `body` under `secret`, signed within the
 * tolerance of `nowSeconds`, compared in constant time: the check docs/user/webhooks.md shows a receiver.
 */
export function verifyWebhookSignature(
  body: string | Buffer,
  secret: string,
  signature: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const m = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(signature ?? '');
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(nowSeconds - t) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(sign(body, secret, t));
  const given = Buffer.from(signature!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export interface Delivery {
  eventId: string;
  attempt: number;
  signed: boolean;
  headers: IncomingMessage['headers'];
  body: { id: string; kind: string; subscription: string; changes?: Array<Record<string, unknown>> };
}

export interface WebhookReceiver {
  url: string;
  /** Every request received, in order (acknowledged or not). */
  received: Delivery[];
  /** The status of the next answers (default 200), and a pause before each. */
  answer: { status: number; delayMs: number };
  /** Resolves once `n` requests were received with an acknowledgement (2xx). */
  acknowledged(n: number): Promise<void>;
  ackCount(): number;
  stop(): Promise<void>;
  /** Starts again on the same port. */
  restart(): Promise<void>;
}

export async function startWebhookReceiver(secret: string, port = 0): Promise<WebhookReceiver> {
  const received: Delivery[] = [];
  const answer = { status: 200, delayMs: 0 };
  let acks = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const handler = (req: IncomingMessage, res: import('node:http').ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const signature = req.headers['x-cincy-signature'];
      received.push({
        eventId: String(req.headers['x-cincy-event-id']),
        attempt: Number(req.headers['x-cincy-attempt']),
        signed: verifyWebhookSignature(raw, secret, typeof signature === 'string' ? signature : undefined),
        headers: req.headers,
        body: JSON.parse(raw.toString('utf8')) as Delivery['body'],
      });
      const { status, delayMs } = answer;
      setTimeout(() => {
        res.writeHead(status).end();
        if (status >= 200 && status < 300) {
          acks += 1;
          for (const w of waiters.filter((w) => acks >= w.n)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve();
          }
        }
      }, delayMs);
    });
  };
  let server: Server;
  const listen = (p: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server = createServer(handler);
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const bound = await listen(port);
  return {
    url: `http://127.0.0.1:${bound}/hook`,
    received,
    answer,
    acknowledged: (n) => (acks >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    ackCount: () => acks,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    restart: async () => {
      await listen(bound);
    },
  };
}
