// Risk evaluation as the cluster-version-operator does it: the rules of a risk in order (unknown
// types skipped, the first that evaluates decides), Always matches, PromQL asks Prometheus for an
// instant vector of exactly one sample, 0 or 1. Queries go through the CVO's throttled cache
// (pkg/clusterconditions/cache/cache.go, Cache.Match): results and failures are cached alike; at most
// one query a second overall, and each one is spent on the most stale rule asked for since its last
// evaluation (never evaluated first), not on the rule being asked, so that rules asked late in every
// pass are not starved by early ones that fail; a rule is evaluated again an hour after its last
// evaluation at the soonest; an entry is forgotten a day after it was evaluated (or asked, if never).
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

/** One rule in the cache: when it was last asked for and, once evaluated, when and with what result. */
interface Entry {
  asked: number;
  evaluated?: { at: number; result: { matches: boolean } | { error: string } };
}

/** The most rules the cache holds. */
export const MAX_CACHED_RULES = 10_000;

/** The largest PromQL answer read. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * At most one query a second overall (the CVO's MinBetweenMatches); a rule evaluated again after an hour
 * (MinForCondition); forgotten after a day (Expiration). A rule asked for over the rate is queued (the
 * loop's way), or its query waited for (`waitWhenThrottled`: a single pass, `--once`).
 */
const DEFAULT_LIMITS = { minIntervalMs: 1000, refreshMs: 3600_000, forgetMs: 86400_000, waitWhenThrottled: false };

export class RiskEvaluator {
  private readonly limits: typeof DEFAULT_LIMITS;
  private readonly cache = new Map<string, Entry>();
  private lastQueryAt = -Infinity;
  private forgotAt = -Infinity;
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
    let now = this.now();
    try {
      this.forget(now);
      const elapsed = now - this.lastQueryAt;
      // As the CVO: throttled up to and including the interval (an interval of 0, in tests, is no limit).
      if (this.limits.minIntervalMs > 0 && elapsed <= this.limits.minIntervalMs) {
        const cached = this.cache.get(query)?.evaluated;
        if (cached) return cached.result;
        if (!this.limits.waitWhenThrottled) return throttled(elapsed);
        await new Promise((r) => setTimeout(r, this.limits.minIntervalMs - elapsed));
        now = this.now();
      }
      // The query is spent on the most stale rule asked for, which may be another than this one. With none
      // asked for, this one is evaluated if due: the CVO would evaluate it however fresh, but its own
      // definition of MinForCondition ("the minimum duration before a new Match call for a given
      // condition may be evaluated") is what is kept here.
      const stale = this.mostStale(now) ?? { query, due: this.due(query, now) };
      let target = stale.query;
      if (!stale.due) {
        const cached = this.cache.get(query)?.evaluated;
        if (cached) return cached.result;
        target = query; // nothing is due, but this one was never evaluated
      }
      const result = await this.query(target);
      now = this.now();
      this.lastQueryAt = now; // the CVO counts from when the last call completed
      if (!this.cache.has(target)) this.remember(target, 0);
      this.cache.get(target)!.evaluated = { at: now, result };
      // Spent on another rule: this one waits its turn, in the CVO's words for that case.
      return this.cache.get(query)?.evaluated?.result ?? { queued: true, error: 'evaluation is throttled' };
    } finally {
      // Asked now: once evaluated before this moment, the rule is a candidate for the next query again. The
      // map is kept in the order rules were last asked for (moved to its end), so the first is the oldest.
      const entry = this.cache.get(query);
      if (entry) {
        this.cache.delete(query);
        entry.asked = now;
        this.cache.set(query, entry);
      } else this.remember(query, now);
    }
  }

  /**
   * A rule asked for the first time. The rules come from the update service's answers: one that changes
   * its queries on every answer must not grow the cache for a day, so past MAX_CACHED_RULES the rule asked
   * for longest ago makes room (a real graph asks some twenty).
   */
  private remember(query: string, now: number): void {
    if (this.cache.size >= MAX_CACHED_RULES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(query, { asked: now });
  }

  /**
   * The rule asked for since its last evaluation that was evaluated longest ago (never, first; on a tie,
   * the one asked for first), and whether it is due (its last evaluation an hour old or more).
   */
  private mostStale(now: number): { query: string; due: boolean } | undefined {
    let found: { query: string; entry: Entry } | undefined;
    for (const [query, entry] of this.cache) {
      const at = entry.evaluated?.at ?? -Infinity;
      if (entry.asked <= at) continue; // not asked for since its last evaluation
      const best = found && (found.entry.evaluated?.at ?? -Infinity);
      if (!found || at < best! || (at === best && entry.asked < found.entry.asked)) found = { query, entry };
    }
    return found && { query: found.query, due: this.due(found.query, now) };
  }

  /** Whether a rule was never evaluated, or last an hour ago or more. */
  private due(query: string, now: number): boolean {
    const at = this.cache.get(query)?.evaluated?.at;
    return at === undefined || now - at >= this.limits.refreshMs;
  }

  /** Drops results evaluated, and rules never evaluated but asked for, more than a day ago (a look a minute). */
  private forget(now: number): void {
    if (now - this.forgotAt < 60_000) return;
    this.forgotAt = now;
    for (const [query, entry] of this.cache)
      if (now - (entry.evaluated?.at ?? entry.asked) > this.limits.forgetMs) this.cache.delete(query);
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
        return { error: `query returned ${clip(String(doc.data?.resultType ?? doc.status))}, not a vector` };
      const samples = doc.data.result ?? [];
      if (samples.length !== 1) return { error: `invalid PromQL result length must be one, but is ${samples.length}` };
      const value = samples[0]!.value?.[1];
      if (value === '0') return { matches: false };
      if (value === '1') return { matches: true };
      return { error: `invalid PromQL result value ${clip(String(value))}, must be 0 or 1` };
    } catch (err) {
      if (deadline.aborted) return { error: `the query did not complete within ${deadlineMs / 1000} s` };
      return {
        error: `${(err as Error).message}${(err as Error & { cause?: Error }).cause ? `: ${(err as Error & { cause: Error }).cause.message}` : ''}`,
      };
    }
  }
}

/** A rule left for a later pass by the rate limit, in the words of the CVO of 4.14 and 4.15. */
function throttled(elapsed: number): { error: string; queued: true } {
  return {
    queued: true,
    error: `client-side throttling: only ${goDuration(elapsed)} has elapsed since the last match call completed for this cluster condition backend; this cached cluster condition request has been queued for later execution`,
  };
}

/** Text from Prometheus, cut to what a status message can carry (it is cached, and written into conditions). */
const clip = (text: string): string => (text.length > 100 ? `${text.slice(0, 100)}…` : text);

/** A duration in milliseconds as Go prints one (time.Duration's String): 0s, 250ms, 1.5s. */
function goDuration(ms: number): string {
  if (ms <= 0) return '0s';
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}
