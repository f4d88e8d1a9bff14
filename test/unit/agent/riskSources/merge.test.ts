// Risks of the agent's own sources merged into the update lists as pkg/risk/risk.go Merge merges them:
// names checked, first definitions kept, recommended updates made conditional, conditional ones joined,
// and everything that does not merge reported rather than thrown.
import { describe, expect, it } from 'vitest';
import { mergeRisks } from '../../../../src/agent/riskSources/merge.js';
import type { SourceRisk } from '../../../../src/agent/riskSources/source.js';

const release = (version: string) => ({ version, image: `quay.example/ocp@sha256:${version}` });
const risk = (name: string, message = `${name} hurts.`): SourceRisk => ({
  name,
  message,
  url: `https://example.com/${name}`,
  matchingRules: [{ type: 'Always' }],
});
const graphRisk = {
  ...risk('FromGraph'),
  matchingRules: [{ type: 'PromQL' as const, promql: { promql: 'vector(1)' } }],
};

describe('merging source risks into the update lists', () => {
  const available = ['4.16.2', '4.17.1'].map(release);
  const conditional = [{ release: release('4.17.0'), risks: [graphRisk] }];

  it('moves recommended updates into the conditional ones, joins conditional ones, in version then name order', () => {
    const versions = new Map([
      ['Zebra', ['4.17.1', '4.17.0']],
      ['Alpha', ['4.17.0']],
    ]);
    const m = mergeRisks(available, conditional, [risk('Zebra'), risk('Alpha')], versions);
    expect(m.problems).toEqual([]);
    expect(m.available.map((r) => r.version)).toEqual(['4.16.2']);
    expect(m.conditional.map((c) => [c.release.version, c.risks.map((r) => r.name)])).toEqual([
      ['4.17.0', ['Alpha', 'FromGraph', 'Zebra']],
      ['4.17.1', ['Zebra']],
    ]);
    expect(conditional[0]!.risks).toEqual([graphRisk]); // the input is not changed
  });

  it('refuses names off the convention, keeps the first of two definitions and reports the other', () => {
    const versions = new Map([
      ['etcdMembersDown', ['4.16.2']],
      ['AdminAck-ack-4.16-kube-1.30-api-removals-in-4.17', ['4.17.1']],
      ['Twice', ['4.16.2']],
    ]);
    const m = mergeRisks(
      available,
      conditional,
      [
        risk('etcdMembersDown'),
        risk('AdminAck-ack-4.16-kube-1.30-api-removals-in-4.17'),
        risk('Twice'),
        risk('Twice', 'Another text.'),
      ],
      versions,
    );
    expect(m.problems).toEqual([
      'invalid risk name "etcdMembersDown" does not match "^[A-Z][A-Za-z0-9.-]*$"',
      'divergent definitions of risk "Twice" from the merging source',
    ]);
    expect(m.conditional.find((c) => c.release.version === '4.16.2')!.risks).toEqual([risk('Twice')]);
    expect(m.conditional.find((c) => c.release.version === '4.17.1')!.risks.map((r) => r.name)).toEqual([
      'AdminAck-ack-4.16-kube-1.30-api-removals-in-4.17',
    ]);
  });

  it('a name the update already has: kept once, a different definition reported; unknown versions and risks reported', () => {
    const versions = new Map([
      ['FromGraph', ['4.17.0', '4.99.0']],
      ['Missing', ['4.16.2']],
    ]);
    const m = mergeRisks(available, conditional, [risk('FromGraph')], versions);
    expect(m.conditional[0]!.risks).toEqual([graphRisk]);
    expect(m.problems).toEqual([
      'divergent definitions of risk "FromGraph"',
      'cannot merge risk "FromGraph" into unknown release version "4.99.0"',
      'merge versions referenced unknown risks: Missing',
    ]);
    expect(m.available).toEqual(available);
  });
});
