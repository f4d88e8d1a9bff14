// Risk evaluation as the cluster-version-operator does it: the rules of a risk in order (unknown
// types skipped, the first that evaluates decides), Always matches, PromQL asks Prometheus for an
// instant vector of exactly one sample, 0 or 1. Results are cached per rule: at most one query a
// second overall (a query over that rate is queued and its risk Unknown meanwhile, as in the CVO), a rule
// re-evaluated at most every hour, forgotten after a day.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { Risk } from '../graph/model.js';
import { readBounded } from '../readBounded.js';

/** Whether a risk applies; `queued` when it is unknown only because the rate limit put a query off. */
export type Exposure = { applies: true } | { applies: false } | { unknown: string; queued?: true };
type RuleResult = { matches: boolean } | { error: string; queued?: true };

export interface PrometheusOptions {
  url?: string;
  /** Read before each query: a service-account token rotates. */
  tokenFile?: string;
  ca?: string;
  timeoutMs?: number;
}

interface Cached {
  at: number;
  result: { matches: boolean } | { error: string };
}

/** The largest PromQL answer read. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * At most one query a second overall; a rule evaluated again after an hour; forgotten after a day. A query
 * over the rate is queued (the loop's way), or waited for (`waitWhenThrottled`: a single pass, `--once`).
 */
const DEFAULT_LIMITS = { minIntervalMs: 1000, refreshMs: 3600_000, forgetMs: 86400_000, waitWhenThrottled: false };

export class RiskEvaluator {
  private readonly limits: typeof DEFAULT_LIMITS;
  private readonly cache = new Map<string, Cached>();
  private lastQueryAt = -Infinity;
  private readonly dispatcher: Agent;

  constructor(
    private readonly prometheus: PrometheusOptions,
    private readonly now: () => number = Date.now,
    limits: Partial<typeof DEFAULT_LIMITS> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.dispatcher = new Agent(prometheus.ca ? { connect: { ca: prometheus.ca } } : {});
  }

  /** Whether a risk applies to this cluster, or why that is unknown. */
  async evaluate(risk: Risk): Promise<Exposure> {
    const errors: string[] = [];
    let queued = false;
    for (const rule of risk.matchingRules) {
      if (rule.type === 'Always') return { applies: true };
      if (rule.type !== 'PromQL') continue; // a type this agent does not know is skipped
      const r = await this.promql((rule as { promql: { promql: string } }).promql.promql);
      if ('matches' in r) return r.matches ? { applies: true } : { applies: false };
      errors.push(r.error);
      queued ||= r.queued === true;
    }
    // Several failures read as Kubernetes aggregates them, which the CVO's message quotes: each distinct
    // message once, in brackets when there are two or more.
    const distinct = [...new Set(errors)];
    const unknown = distinct.length > 1 ? `[${distinct.join(', ')}]` : (distinct[0] ?? 'no rule could be evaluated');
    return queued ? { unknown, queued: true } : { unknown };
  }

  private async promql(query: string): Promise<RuleResult> {
    const now = this.now();
    for (const [k, c] of this.cache) if (now - c.at > this.limits.forgetMs) this.cache.delete(k);
    const cached = this.cache.get(query);
    if (cached && now - cached.at < this.limits.refreshMs && 'matches' in cached.result) return cached.result;
    const elapsed = now - this.lastQueryAt;
    // Throttled: with a result at hand, an early re-evaluation waits for a later pass.
    if (cached && elapsed < this.limits.minIntervalMs) return cached.result;
    // Without one the query is queued, not waited for, as the CVO does: the risk is Unknown meanwhile and
    // the poll comes back for it (pollLoop.ts), so a hundred risks never hold the loop for a hundred seconds.
    if (elapsed < this.limits.minIntervalMs && this.limits.waitWhenThrottled) {
      await new Promise((r) => setTimeout(r, this.limits.minIntervalMs - elapsed));
    } else if (elapsed < this.limits.minIntervalMs) {
      return {
        queued: true,
        error: `client-side throttling: only ${goDuration(elapsed)} has elapsed since the last match call completed for this cluster condition backend; this cached cluster condition request has been queued for later execution`,
      };
    }
    const result = await this.query(query);
    this.lastQueryAt = this.now(); // the CVO counts from when the last call completed
    this.cache.set(query, { at: this.now(), result });
    return result;
  }

  private async query(query: string): Promise<RuleResult> {
    if (!this.prometheus.url) return { error: 'no Prometheus URL is configured' };
    const url = new URL(
      'api/v1/query',
      this.prometheus.url.endsWith('/') ? this.prometheus.url : `${this.prometheus.url}/`,
    );
    url.searchParams.set('query', query);
    // One deadline for the whole query: the timeouts below only bound the waits between chunks, and a
    // Prometheus that trickles its answer must not hold the poll.
    const deadlineMs = this.prometheus.timeoutMs ?? 30_000;
    const deadline = AbortSignal.timeout(deadlineMs);
    try {
      const res = await request(url, {
        signal: deadline,
        headers: {
          accept: 'application/json',
          ...(this.prometheus.tokenFile && {
            authorization: `Bearer ${readFileSync(this.prometheus.tokenFile, 'utf8').trim()}`,
          }),
        },
        dispatcher: this.dispatcher,
        headersTimeout: this.prometheus.timeoutMs ?? 30_000,
        bodyTimeout: this.prometheus.timeoutMs ?? 30_000,
      });
      // An instant vector of one sample is small: a longer answer is refused, not buffered.
      const text = (
        await readBounded(res.body, MAX_ANSWER_BYTES, () => new Error(`an answer over ${MAX_ANSWER_BYTES} bytes`))
      ).toString('utf8');
      if (res.statusCode !== 200)
        return { error: `query failed with HTTP status ${res.statusCode}: ${text.slice(0, 200)}` };
      const doc = JSON.parse(text) as {
        status?: string;
        data?: { resultType?: string; result?: Array<{ value?: [number, string] }> };
      };
      if (doc.status !== 'success' || doc.data?.resultType !== 'vector')
        return { error: `query returned ${doc.data?.resultType ?? doc.status}, not a vector` };
      const samples = doc.data.result ?? [];
      if (samples.length !== 1) return { error: `invalid PromQL result length must be one, but is ${samples.length}` };
      const value = samples[0]!.value?.[1];
      if (value === '0') return { matches: false };
      if (value === '1') return { matches: true };
      return { error: `invalid PromQL result value ${value}, must be 0 or 1` };
    } catch (err) {
      if (deadline.aborted) return { error: `the query did not complete within ${deadlineMs / 1000} s` };
      return {
        error: `${(err as Error).message}${(err as Error & { cause?: Error }).cause ? `: ${(err as Error & { cause: Error }).cause.message}` : ''}`,
      };
    }
  }
}

/** A duration in milliseconds as Go prints one (time.Duration's String): 0s, 250ms, 1.5s. */
function goDuration(ms: number): string {
  if (ms <= 0) return '0s';
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}
