// The agent's rules on plain values: a risk's rules evaluated (src/agent/risks.ts), their failures
// aggregated. test/service/agent/risks.test.ts has those that need Prometheus to answer over HTTP (the
// PromQL cache, the query's deadline and cap). The agent's other rules are in cincinnati.test.ts,
// recommendations.test.ts and acceptRisks.test.ts.
import { describe, expect, it } from 'vitest';
import { RiskEvaluator } from '../../../src/agent/risks.js';
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
});
