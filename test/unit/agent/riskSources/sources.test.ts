// The --risk-sources flag: the CVO's source names, a comma list or none, and a clear error otherwise.
import { describe, expect, it } from 'vitest';
import type { ClusterApi } from '../../../../src/cluster/api.js';
import { ALL_RISK_SOURCES, riskSourceNames, riskSources } from '../../../../src/agent/riskSources/sources.js';

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
