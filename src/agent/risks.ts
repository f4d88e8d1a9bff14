// Risk evaluation as the cluster-version-operator does it: the rules of a risk in order (unknown
// types skipped, the first that evaluates decides), Always matches, PromQL asks Prometheus for an
// instant vector of exactly one sample, 0 or 1. Results are cached per rule: at most one query a
// second overall, a rule re-evaluated at most every hour, forgotten after a day.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { Risk } from '../graph/model.js';

export type Exposure = { applies: true } | { applies: false } | { unknown: string };

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

/** At most one query a second overall; a rule evaluated again after an hour; forgotten after a day. */
const DEFAULT_LIMITS = { minIntervalMs: 1000, refreshMs: 3600_000, forgetMs: 86400_000 };

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
    for (const rule of risk.matchingRules) {
      if (rule.type === 'Always') return { applies: true };
      if (rule.type !== 'PromQL') continue; // a type this agent does not know is skipped
      const r = await this.promql((rule as { promql: { promql: string } }).promql.promql);
      if ('matches' in r) return r.matches ? { applies: true } : { applies: false };
      errors.push(r.error);
    }
    // Several failures read as Kubernetes aggregates them, which the CVO's message quotes: [first, second].
    if (errors.length > 1) return { unknown: `[${errors.join(', ')}]` };
    return { unknown: errors[0] ?? 'no rule could be evaluated' };
  }

  private async promql(query: string): Promise<{ matches: boolean } | { error: string }> {
    const now = this.now();
    for (const [k, c] of this.cache) if (now - c.at > this.limits.forgetMs) this.cache.delete(k);
    const cached = this.cache.get(query);
    if (cached && now - cached.at < this.limits.refreshMs && 'matches' in cached.result) return cached.result;
    // Throttled: with a result at hand, an early re-evaluation waits for a later pass.
    if (cached && now - this.lastQueryAt < this.limits.minIntervalMs) return cached.result;
    if (now - this.lastQueryAt < this.limits.minIntervalMs)
      await new Promise((r) => setTimeout(r, this.limits.minIntervalMs - (now - this.lastQueryAt)));
    this.lastQueryAt = this.now();
    const result = await this.query(query);
    this.cache.set(query, { at: this.now(), result });
    return result;
  }

  private async query(query: string): Promise<{ matches: boolean } | { error: string }> {
    if (!this.prometheus.url) return { error: 'no Prometheus URL is configured' };
    const url = new URL(
      'api/v1/query',
      this.prometheus.url.endsWith('/') ? this.prometheus.url : `${this.prometheus.url}/`,
    );
    url.searchParams.set('query', query);
    try {
      const res = await request(url, {
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
      const text = await res.body.text();
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
      return {
        error: `${(err as Error).message}${(err as Error & { cause?: Error }).cause ? `: ${(err as Error & { cause: Error }).cause.message}` : ''}`,
      };
    }
  }
}
