// The price of planning. Paths are planned on the serving thread (the planner is synchronous), and the
// public may ask: so each client address has a budget of paths a minute (--plan-rate-limit), which
// /api/v1/paths charges one per path asked for (`limit`) and /api/v1/mirror-plan one per source. Past
// it, 429 with Retry-After; every answer says what is left (X-RateLimit-Limit, X-RateLimit-Remaining).
// The address is the peer's: behind a proxy, the clients behind it share one budget.
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
    const allowance = this.limit.count(request.ip, Math.max(1, paths));
    reply.header('x-ratelimit-limit', allowance.limit);
    reply.header('x-ratelimit-remaining', allowance.remaining);
    refuseOverLimit(allowance, reply);
  }
}
