// The agent's rules on plain values: a risk's rules evaluated (src/agent/risks.ts), their failures
// aggregated. test/service/agent/risks.test.ts has those that need Prometheus to answer over HTTP (the
// PromQL cache, the query's deadline and cap). The agent's other rules are in cincinnati.test.ts,
// recommendations.test.ts and acceptRisks.test.ts.
import { describe, expect, it } from 'vitest';
import { MAX_CACHED_RULES, RiskEvaluator } from '../../../src/agent/risks.js';
import { risk } from '../../support/agentRules.js';

describe('agent rules', () => {
  it("aggregates the failures of a risk's rules as Kubernetes does: each message once, brackets for two or more", async () => {
    const evaluator = new RiskEvaluator({}, Date.now, { minIntervalMs: 0 });
    const rule = (q: string) => ({ type: 'PromQL', promql: { promql: q } });
    expect(await evaluator.evaluate(risk('Twice', [rule('a'), rule('b')]))).toEqual({
      unknown: 'no Prometheus URL is configured',
    });
    expect(await evaluator.evaluate(risk('None', [{ type: 'Unknown' }]))).toEqual({
      unknown: 'no rule could be evaluated',
    });
  });

  it('holds at most MAX_CACHED_RULES rules: an update service changing its queries on every answer cannot grow it', async () => {
    let now = 0;
    const evaluator = new RiskEvaluator({}, () => now, { minIntervalMs: 1000 });
    const cache = (evaluator as unknown as { cache: Map<string, unknown> }).cache;
    for (let i = 0; i < MAX_CACHED_RULES + 2_000; i++) {
      await evaluator.evaluate(
        risk(`R${i}`, [{ type: 'PromQL', promql: { promql: `junk_${i}{x="${'y'.repeat(200)}"}` } }]),
      );
      now += 1;
    }
    expect(cache.size).toBe(MAX_CACHED_RULES);
    // The rules asked for longest ago made room; the newest are there.
    expect(cache.has(`junk_0{x="${'y'.repeat(200)}"}`)).toBe(false);
    expect(cache.has(`junk_${MAX_CACHED_RULES + 1_999}{x="${'y'.repeat(200)}"}`)).toBe(true);
  });
});
