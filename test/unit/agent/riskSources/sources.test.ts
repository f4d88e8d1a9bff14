// The --risk-sources flag: the CVO's source names, a comma list or none, and a clear error otherwise.
import { describe, expect, it } from 'vitest';
import type { ClusterApi } from '../../../../src/cluster/api.js';
import { ALL_RISK_SOURCES } from '../../../../src/agent/riskSources/names.js';
import { riskSourceNames, riskSources } from '../../../../src/agent/riskSources/sources.js';
import { collectRisks, MAX_RISKS_PER_SOURCE, type RiskSource } from '../../../../src/agent/riskSources/source.js';
import type { ClusterVersion } from '../../../../src/agent/clusterVersion.js';

describe('--risk-sources', () => {
  it('names the sources by the CVO names; none for none; the alert source only with a Prometheus', () => {
    expect(riskSourceNames(ALL_RISK_SOURCES)).toEqual(['Alert', 'AdminAck', 'ClusterOperatorUpgradeable']);
    expect(riskSourceNames(' none ')).toEqual([]);
    expect(riskSourceNames('AdminAck,AdminAck')).toEqual(['AdminAck']);
    const api = {} as ClusterApi;
    expect(riskSources(['Alert', 'AdminAck'], api, undefined).map((s) => s.name)).toEqual(['AdminAck']);
    expect(riskSources(['Alert'], api, { url: 'http://127.0.0.1:9090' }).map((s) => s.name)).toEqual(['Alert']);
  });

  it('refuses a name it does not know, naming it and the known ones', () => {
    expect(() => riskSourceNames('Alert,alerts')).toThrow(
      "--risk-sources: 'alerts' is none of Alert, AdminAck, ClusterOperatorUpgradeable (or none)",
    );
    expect(() => riskSourceNames('')).toThrow("--risk-sources: '' is none of");
  });
});

describe('the sources together', () => {
  const source = (name: string, count: number, message = 'm'): RiskSource => ({
    name,
    risks: async (versions) => {
      const risks = Array.from({ length: count }, (_, i) => ({
        name: `${name}${String(i).padStart(3, '0')}`,
        message,
        url: 'https://example.com',
        matchingRules: [{ type: 'Always' as const }],
      }));
      return { risks, versions: new Map(risks.map((r) => [r.name, versions])) };
    },
  });
  const cv = {} as ClusterVersion;

  it('each source within its share, so a storm of one kind keeps the others; a failing source reported, the others kept', async () => {
    const failing: RiskSource = { name: 'Broken', risks: async () => Promise.reject(new Error('boom')) };
    const all = await collectRisks([source('Alert', 5_000), failing, source('AdminAck', 3)], ['4.17.0'], cv);
    expect(all.risks).toHaveLength(MAX_RISKS_PER_SOURCE + 3);
    expect(all.risks.filter((r) => r.name.startsWith('AdminAck'))).toHaveLength(3);
    expect([...all.versions.keys()]).toEqual(all.risks.map((r) => r.name));
    expect(all.problems).toEqual([
      `Alert: 5000 risks, only the first ${MAX_RISKS_PER_SOURCE} merged (a ClusterVersion holds 200 risks an update, 500 in all)`,
      'Broken: boom',
    ]);
  });

  it('names the merge refuses take no share and only a few are passed on to be reported', async () => {
    const junk: RiskSource = {
      name: 'Alert',
      risks: async (versions) => {
        const risks = Array.from({ length: 1_000 }, (_, i) => ({
          name: i % 2 ? `lower${i}` : `A${'x'.repeat(300)}${i}`,
          message: 'm',
          url: 'u',
          matchingRules: [{ type: 'Always' as const }],
        }));
        return { risks, versions: new Map(risks.map((r) => [r.name, versions])) };
      },
    };
    const all = await collectRisks([junk, source('ClusterOperatorUpgradeable', 2)], ['4.17.0'], cv);
    expect(all.risks.filter((r) => r.name.startsWith('ClusterOperatorUpgradeable'))).toHaveLength(2);
    expect(all.risks.length).toBeLessThanOrEqual(7);
  });

  it('two sources defining one name differently: the first stands, the second reported', async () => {
    const all = await collectRisks([source('A', 1), source('A', 1, 'other')], ['4.17.0'], cv);
    expect(all.risks.map((r) => r.message)).toEqual(['m']);
    expect(all.problems).toEqual(['divergent definitions of risk "A000" from "A"']);
  });
});
