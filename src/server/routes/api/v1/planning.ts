// The price of planning. Paths are planned on the serving thread (the planner is synchronous), and the
// public may ask: so each client address has a budget of paths a minute (--plan-rate-limit), which
// /api/v1/paths charges 1 for one path and 10 for more (any `limit` above 1 runs the search for
// alternatives) and /api/v1/mirror-plan one per source (each is one path). Past
// it, 429 with Retry-After; every answer says what is left (X-RateLimit-Limit, X-RateLimit-Remaining).
// The address is the peer's, or with --trust-proxy the one the trusted proxies name (X-Forwarded-For); an
// IPv6 client is counted by its /64, the least a network is given, so one cannot rotate addresses in it.
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimit } from '../../../../app/rateLimit.js';
import type { Clock } from '../../../../clock.js';
import { refuseOverLimit } from '../../../auth.js';

/** serve's default of --plan-rate-limit. */
export const DEFAULT_PLANS_PER_MINUTE = 1200;

export class PlanningBudget {
  private readonly limit: RateLimit;

  constructor(perMinute: number, clock: Clock) {
    this.limit = new RateLimit(perMinute, clock, 'planned paths');
  }

  /** Charges the request's client `paths`; answers 429 (throws) when its budget does not hold them. */
  charge(request: FastifyRequest, reply: FastifyReply, paths: number): void {
    const allowance = this.limit.count(clientOf(request.ip, request.socket.remoteAddress), Math.max(1, paths));
    reply.header('x-ratelimit-limit', allowance.limit);
    reply.header('x-ratelimit-remaining', allowance.remaining);
    refuseOverLimit(allowance, reply);
  }
}

/**
 * Who a budget is for: an IPv4 address (also one mapped into IPv6), or an IPv6 address's /64. What is no
 * address (a forwarded value a proxy let through) counts as the peer that sent it.
 */
export function clientOf(ip: string | undefined, peer: string | undefined): string {
  const address = (ip ?? '').split('%')[0]!;
  const family = isIP(address);
  if (family === 0) return peer !== undefined && isIP(peer.split('%')[0]!) ? clientOf(peer, undefined) : 'unknown';
  if (family === 4) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = address.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
