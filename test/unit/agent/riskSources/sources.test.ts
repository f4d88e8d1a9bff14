// The --risk-sources flag: the CVO's source names, a comma list or none, and a clear error otherwise.
import { describe, expect, it } from 'vitest';
import type { ClusterApi } from '../../../../src/cluster/api.js';
import { ALL_RISK_SOURCES, riskSourceNames, riskSources } from '../../../../src/agent/riskSources/sources.js';
import { collectRisks, MAX_SOURCE_RISKS, type RiskSource } from '../../../../src/agent/riskSources/source.js';
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

  it('at most MAX_SOURCE_RISKS risks, the rest reported; a failing source reported, the others kept', async () => {
    const failing: RiskSource = { name: 'Broken', risks: async () => Promise.reject(new Error('boom')) };
    const all = await collectRisks([source('A', 80), failing, source('B', 70)], ['4.17.0'], cv);
    expect(all.risks).toHaveLength(MAX_SOURCE_RISKS);
    expect([...all.versions.keys()]).toEqual(all.risks.map((r) => r.name));
    expect(all.problems).toEqual([
      'Broken: boom',
      `150 risks from the sources: only the first ${MAX_SOURCE_RISKS} are merged (a ClusterVersion holds 200 risks an update, 500 in all)`,
    ]);
  });

  it('two sources defining one name differently: the first stands, the second reported', async () => {
    const all = await collectRisks([source('A', 1), source('A', 1, 'other')], ['4.17.0'], cv);
    expect(all.risks.map((r) => r.message)).toEqual(['m']);
    expect(all.problems).toEqual(['divergent definitions of risk "A000" from "A"']);
  });
});
