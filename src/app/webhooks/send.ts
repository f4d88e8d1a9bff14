// One delivery attempt: a POST of the body with its signature, within a timeout; any 2xx answer is
// the receiver's acknowledgement, anything else (another status, no answer in time, no connection)
// a failure that is tried again. Redirects are not followed.
import type * as Undici from 'undici';
import { lazyModule } from '../../lazyModule.js';
import { checkedLookup, ipHost, refusedAddress } from './destination.js';
import { ATTEMPT_HEADER, EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, sign } from './signature.js';

const undici = lazyModule<typeof Undici>('undici');

export interface SendOptions {
  timeoutMs: number;
  /** Deliver to loopback, link-local and private addresses too. */
  allowLoopback: boolean;
}

export interface Attempt {
  url: string;
  secret: string;
  eventId: string;
  body: string;
  /** 1 for the first attempt. */
  attempt: number;
  now: number;
}

/** Sends deliveries; close() closes its connections. */
export class Sender {
  private agentMade: Undici.Agent | undefined;
  private readonly closing = new AbortController();

  constructor(private readonly opts: SendOptions) {}

  /** The connections, made by the first delivery (undici is loaded then: most servers have no webhook). */
  private get agent(): Undici.Agent {
    return (this.agentMade ??= new (undici().Agent)({
      connections: 4,
      ...(!this.opts.allowLoopback && { connect: { lookup: checkedLookup } }),
    }));
  }

  /** Undefined when the receiver acknowledged; else why not. */
  async send(a: Attempt): Promise<string | undefined> {
    const url = new URL(a.url);
    const ip = ipHost(url);
    const refused = !this.opts.allowLoopback && ip !== undefined ? refusedAddress(ip) : undefined;
    if (refused) return refused;
    if (this.closed) return 'not sent: the sender was closed';
    // Outside the try: undici that cannot be loaded is this process's failure, not the receiver's.
    const { request } = undici();
    const dispatcher = this.agent;
    const seconds = Math.floor(a.now / 1000);
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'cincy-webhooks',
          [SIGNATURE_HEADER]: sign(a.body, a.secret, seconds),
          [EVENT_ID_HEADER]: a.eventId,
          [TIMESTAMP_HEADER]: String(seconds),
          [ATTEMPT_HEADER]: String(a.attempt),
        },
        body: a.body,
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
        signal: AbortSignal.any([AbortSignal.timeout(this.opts.timeoutMs), this.closing.signal]),
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      return res.statusCode >= 200 && res.statusCode < 300 ? undefined : `the receiver answered ${res.statusCode}`;
    } catch (err) {
      const e = err as Error & { cause?: Error };
      return `${e.message}${e.cause ? `: ${e.cause.message}` : ''}`.slice(0, 500);
    }
  }

  /** True once close() was called: the attempts in flight then were cut short, not failed by their receivers. */
  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /** Cuts the attempts in flight short and closes the connections. */
  close(): Promise<void> {
    this.closing.abort();
    return this.agentMade?.close() ?? Promise.resolve();
  }
}
