// The agent's rules on plain values, those of the Recommended condition and the status it writes
// (src/agent/recommendations.ts), and a property over random graphs. The update service's answer is read
// in cincinnati.test.ts, the accept-risks gate in acceptRisks.test.ts, a risk's rules evaluated in
// risks.test.ts.
import { describe, expect, it } from 'vitest';
import { updatesFrom, type GraphResponse } from '../../../src/agent/cincinnati.js';
import { keepTransition } from '../../../src/agent/conditions.js';
import {
  ALL_ACCEPTED,
  appliesCondition,
  MAX_CONDITION_MESSAGE,
  NOT_EXPOSED,
  recommended,
  risksByName,
  updateStatus,
} from '../../../src/agent/recommendations.js';
import type { Exposure } from '../../../src/agent/risks.js';
import type { Risk } from '../../../src/graph/model.js';
import { node, risk } from '../../support/agentRules.js';

const AT = '2026-01-01T00:00:00Z';

describe('agent rules', () => {
  it('composes the Recommended condition with its precedence, reasons and messages', () => {
    const A = risk('A');
    const weird = risk('Not a reason!');
    const U = risk('U');
    const applies = new Map<string, Exposure>([
      ['A', { applies: true }],
      ['B', { applies: false }],
      ['Not a reason!', { applies: true }],
      ['U', { unknown: 'boom' }],
    ]);
    expect(recommended([], applies, undefined, AT)).toMatchObject({
      status: 'True',
      reason: 'NotExposedToRisks',
      message: NOT_EXPOSED,
    });
    expect(recommended([risk('B')], applies, undefined, AT).status).toBe('True');
    expect(recommended([weird], applies, undefined, AT)).toMatchObject({ status: 'False', reason: 'ExposedToRisks' });
    const mixed = recommended([U, A], applies, undefined, AT);
    expect(mixed).toMatchObject({ status: 'False', reason: 'MultipleReasons' });
    expect(mixed.message).toBe(
      'Could not evaluate exposure to update risk U (boom)\n  U description: U hurts.\n  U URL: https://issues.example/U\n\nA hurts. https://issues.example/A',
    );
    // The same risk applying twice is one reason.
    expect(recommended([A, A], applies, undefined, AT).reason).toBe('A');
    // A risk never evaluated (which should not happen) is Unknown, said so.
    expect(recommended([risk('Missing')], applies, undefined, AT)).toMatchObject({
      status: 'Unknown',
      reason: 'EvaluationFailed',
      message: 'failed to find risk condition for risk Missing',
    });
    const later = recommended([], applies, undefined, '2026-02-01T00:00:00Z');
    expect(keepTransition(later, { ...later, lastTransitionTime: AT }).lastTransitionTime).toBe(AT);
    expect(keepTransition(later, { ...later, status: 'False', lastTransitionTime: AT }).lastTransitionTime).toBe(
      '2026-02-01T00:00:00Z',
    );
  });

  it("counts an accepted risk only with the accept-risks feature on, folding reasons in the risks' order", () => {
    const [A, C] = [risk('A'), risk('C')];
    const applies = new Map<string, Exposure>([
      ['A', { applies: true }],
      ['C', { applies: true }],
    ]);
    // Feature off: acceptRisks is not read.
    expect(recommended([A], applies, undefined, AT)).toMatchObject({ status: 'False', reason: 'A' });
    expect(recommended([A], applies, new Set(['A']), AT)).toMatchObject({
      status: 'True',
      reason: 'AllExposedRisksAccepted',
      message: ALL_ACCEPTED,
    });
    // An accepted risk before an unaccepted one gives way to it; after it, the two reasons are MultipleReasons.
    expect(recommended([A, C], applies, new Set(['A']), AT)).toMatchObject({
      status: 'False',
      reason: 'C',
      message: 'C hurts. https://issues.example/C',
    });
    expect(recommended([C, A], applies, new Set(['A']), AT)).toMatchObject({
      status: 'False',
      reason: 'MultipleReasons',
    });
  });

  it("quotes each update's own definition of a risk evaluated once under a shared name", () => {
    // Two definitions of one name with the same rules, messages differing (as AROBrokenDNSMasq's do in
    // the real graph-data): one evaluation, each update's Recommended with its own text.
    const older = { ...risk('R'), message: 'R breaks on ARO.' };
    const newer = { ...risk('R'), message: 'R breaks on ARO', url: 'https://issues.example/R2' };
    for (const [exposure, quoted] of [
      [
        { unknown: 'boom' },
        (r: Risk) =>
          `Could not evaluate exposure to update risk R (boom)\n  R description: ${r.message}\n  R URL: ${r.url}`,
      ],
      [{ applies: true }, (r: Risk) => `${r.message} ${r.url}`],
    ] as const) {
      const shared = new Map<string, Exposure>([['R', exposure]]);
      expect(recommended([older], shared, undefined, AT).message).toBe(quoted(older));
      expect(recommended([newer], shared, undefined, AT).message).toBe(quoted(newer));
    }
  });

  it('an update with very many applying risks: its message cut at the condition bound, not left to be refused', () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ ...risk(`R${i}`), message: 'x'.repeat(1_000) }));
    const exposures = new Map<string, Exposure>(many.map((r) => [r.name, { applies: true }]));
    const c = recommended(many, exposures, undefined, AT);
    expect(c).toMatchObject({ status: 'False', reason: 'MultipleReasons' });
    expect(c.message.length).toBe(MAX_CONDITION_MESSAGE);
    expect(c.message.endsWith('…')).toBe(true);
  });

  it('evaluates each risk once, with the definition of the highest target that carries it, listed by name', () => {
    const release = (version: string) => ({ version, image: `quay.example/r:${version}` });
    const own = (name: string, v: string): Risk => ({ ...risk(name), message: `${name} as of ${v}` });
    const listed = risksByName([
      { release: release('4.16.4'), risks: [own('Z', '4.16.4'), own('B', '4.16.4')] },
      { release: release('4.16.9'), risks: [own('B', '4.16.9')] },
      { release: release('4.16.5'), risks: [own('A', '4.16.5'), own('Z', '4.16.5')] },
    ]);
    expect(listed.map((r) => `${r.name}: ${r.message}`)).toEqual([
      'A: A as of 4.16.5',
      'B: B as of 4.16.9',
      'Z: Z as of 4.16.5',
    ]);
    expect(appliesCondition(listed[0]!, { applies: false }, AT)).toEqual({
      type: 'Applies',
      status: 'False',
      reason: 'NotMatch',
      message: '',
      lastTransitionTime: AT,
    });
  });

  it('property: every available update is a direct edge or a conditional one whose risks do not apply', () => {
    let seed = 42;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 200; round++) {
      const versions = Array.from({ length: 3 + rand(8) }, (_, i) => `4.16.${i}`);
      const nodes = versions.map((v) => node(v));
      const edges: Array<[number, number]> = [];
      const conditionalEdges: GraphResponse['conditionalEdges'] = [];
      const exposure = new Map<string, boolean>();
      for (let to = 1; to < versions.length; to++) {
        const kind = rand(4);
        if (kind === 0) edges.push([0, to]);
        if (kind >= 2) {
          const name = `R${rand(4)}`;
          exposure.set(name, rand(2) === 0);
          conditionalEdges.push({ edges: [{ from: '4.16.0', to: versions[to]! }], risks: [risk(name)] });
          if (kind === 3) edges.push([0, to]); // also unconditional: the conditional one stands
        }
      }
      const u = updatesFrom({ nodes, edges, conditionalEdges }, '4.16.0');
      const conditional = u.conditional.map((c) => ({
        ...c,
        conditions: [
          recommended(
            c.risks,
            new Map(c.risks.map((r) => [r.name, { applies: exposure.get(r.name)! }])),
            undefined,
            AT,
          ),
        ],
      }));
      const s = updateStatus(u.available, conditional);
      const direct = new Set(edges.filter(([a]) => a === 0).map(([, b]) => versions[b]));
      const safe = new Set(
        conditionalEdges
          .filter((c) => c.risks.every((r) => !exposure.get(r.name)))
          .flatMap((c) => c.edges.map((e) => e.to)),
      );
      const conditionalTargets = new Set(conditionalEdges.flatMap((c) => c.edges.map((e) => e.to)));
      for (const r of s.availableUpdates ?? []) {
        expect(
          conditionalTargets.has(r.version) ? safe.has(r.version) : direct.has(r.version),
          `round ${round}: ${r.version}`,
        ).toBe(true);
      }
      const listed = (s.availableUpdates ?? []).map((r) => r.version);
      expect(listed).toEqual([...listed].sort((a, b) => Number(b.split('.')[2]) - Number(a.split('.')[2])));
    }
  });

  it('omits conditionalUpdateRisks when no update has a risk, as the CVO does (the schema wants one at least)', () => {
    expect(updateStatus([], [], [])).toEqual({ availableUpdates: null, conditionalUpdates: [] });
  });
});
