// The agent's rules that need an HTTP answer, those of evaluating a risk's PromQL rules (src/agent/risks.ts)
// against a Prometheus of its own in this process: the cache, the rate, one deadline and a size cap.
// test/unit/agent/risks.test.ts has the rules on plain values; the graph's fetch is in cincinnati.test.ts.
import { describe, expect, it } from 'vitest';
import { RiskEvaluator } from '../../../src/agent/risks.js';
import { risk } from '../../support/agentRules.js';
import { useCleanup } from '../../support/cleanup.js';
import { prometheusStub, serveLocal } from '../../support/localServers.js';

const cleanup = useCleanup();

describe('agent rules', () => {
  it('caches a PromQL result for an hour and queries at most once a second', async () => {
    const prometheus = await prometheusStub(() => ['1'], cleanup);
    let now = 1_000_000;
    const evaluator = new RiskEvaluator({ url: prometheus.url }, () => now, {
      minIntervalMs: 10,
      refreshMs: 3600_000,
      forgetMs: 86400_000,
    });
    const r = risk('P', [{ type: 'PromQL', promql: { promql: 'up' } }]);
    expect(await evaluator.evaluate(r)).toEqual({ applies: true });
    now += 60_000;
    expect(await evaluator.evaluate(r)).toEqual({ applies: true });
    expect(prometheus.queries()).toBe(1);
    now += 3600_000;
    await evaluator.evaluate(r);
    expect(prometheus.queries()).toBe(2);
  });

  it('spends each allowed query on the most stale rule: failing rules early in every pass do not starve the later ones', async () => {
    // 16 distinct rules, the first 5 failing to evaluate (no sample), asked in the same order on every pass,
    // one pass a second: as pkg/clusterconditions/cache/cache.go does, a failure is cached like a result and
    // each query goes to the rule asked for that waited longest, so all 16 settle in about 16 passes.
    const seen: string[] = [];
    const prometheus = await prometheusStub((q) => (seen.push(q), Number(q.slice(1)) < 5 ? [] : ['0']), cleanup);
    let now = 1_000_000;
    const evaluator = new RiskEvaluator({ url: prometheus.url }, () => now, {
      minIntervalMs: 1000,
      refreshMs: 3600_000,
      forgetMs: 86400_000,
    });
    const risks = Array.from({ length: 16 }, (_, i) =>
      risk(`R${i}`, [{ type: 'PromQL', promql: { promql: `q${i}` } }]),
    );
    let passes = 0;
    let queued = risks.length;
    while (queued > 0 && passes < 100) {
      passes += 1;
      queued = 0;
      for (const r of risks) if ('queued' in (await evaluator.evaluate(r))) queued += 1;
      now += 1001; // a second and a little: the CVO throttles at exactly one
    }
    expect(passes).toBeLessThanOrEqual(17);
    expect(new Set(seen).size).toBe(16);
    expect(seen.length).toBe(16); // each rule once: a failure is not asked again within the hour
    const failing = await evaluator.evaluate(risks[0]!);
    expect(failing).toEqual({ unknown: 'invalid PromQL result length must be one, but is 0' });
    // An hour on, the rules are evaluated again, one a second, the most stale first.
    now += 3600_000;
    for (let pass = 0; pass < 20; pass++) {
      for (const r of risks) await evaluator.evaluate(r);
      now += 1001; // a second and a little: the CVO throttles at exactly one
    }
    expect(seen.length).toBe(32);
    expect(seen.slice(16)).toEqual(seen.slice(0, 16));
  });

  it('hostile finding 4: gives a PromQL query one deadline and a size cap: a trickling or endless Prometheus makes the risk Unknown', async () => {
    const url = await serveLocal((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url!.includes('trickle')) {
        // Headers, then a byte every 100 ms: no gap between chunks ever reaches the per-chunk timeout.
        const timer = setInterval(() => res.write(' '), 100);
        res.on('close', () => clearInterval(timer));
      } else {
        const chunk = ' '.repeat(64 * 1024);
        const pump = (): void => void (res.write(chunk) ? setImmediate(pump) : res.once('drain', pump));
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      }
    }, cleanup);
    const evaluator = new RiskEvaluator({ url, timeoutMs: 1000 }, Date.now, { minIntervalMs: 0 });
    expect(await evaluator.evaluate(risk('Slow', [{ type: 'PromQL', promql: { promql: 'trickle' } }]))).toEqual({
      unknown: 'the query did not complete within 1 s',
    });
    expect(await evaluator.evaluate(risk('Big', [{ type: 'PromQL', promql: { promql: 'endless' } }]))).toEqual({
      unknown: 'an answer over 1048576 bytes',
    });
  });
});
