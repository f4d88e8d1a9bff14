// What the agent writes for real graphs, against the cluster-version-operator's rules applied here on
// their own. For a few hundred (channel, version) states of the public captures of 2024-08-09, the agent
// polls cincy serving that graph-data, on a cluster whose Prometheus answers each query 0, 1 or with an
// error (by a hash of the query); the expected status is computed from the captured response of the public
// service itself, never from cincy's: the updates, each conditional update's own risks in the served order,
// its Recommended condition (status, reason, message), availableUpdates, and with the accept-risks feature
// on, conditionalUpdateRisks and riskNames.
import { createHash } from 'node:crypto';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { UpdatesPoller } from '../../../src/agent/poll.js';
import { RiskEvaluator } from '../../../src/agent/risks.js';
import type { ClusterVersion } from '../../../src/agent/clusterVersion.js';
import { ClusterState } from '@cincy/simulator/apiserver/state';
import { InMemoryClusterApi } from '@cincy/simulator/apiserver/memoryApi';
import { kindNamed } from '@cincy/simulator/apiserver/kinds';
import { CONFORMANCE_DIR, conformanceAvailable, expectedChannels } from '../../support/conformance.js';
import { useCleanup } from '../../support/cleanup.js';
import { prometheusStub } from '../../support/localServers.js';
import { startServer } from '../../support/server.js';
import { join } from 'node:path';

const cleanup = useCleanup();
const SET = 'real-2024-08-09';
const PER_CHANNEL = 12;

interface Risk {
  url: string;
  name: string;
  message: string;
  matchingRules: Array<{ type: string; promql?: { promql: string } }>;
}
type Answer = 0 | 1 | 'error';

/** How the test's Prometheus answers a query: a fixed function of its text. */
const answerOf = (query: string): Answer =>
  (['error', 0, 1, 0, 1, 1] as const)[createHash('sha256').update(query).digest()[0]! % 6]!;
/** What the test's Prometheus sends for a query: one sample 0 or 1, or two samples for an error. */
const samplesOf = (query: string): string[] => {
  const a = answerOf(query);
  return a === 'error' ? ['1', '1'] : [String(a)];
};
/** The CVO's words for a vector of two samples (pkg/clusterconditions/promql). */
const TWO_SAMPLES = 'invalid PromQL result length must be one, but is 2';

// ---- The CVO's rules, written here apart from the agent's code (pkg/cvo/availableupdates.go). ----

type Exposure = { status: 'True' | 'False' } | { status: 'Unknown'; error: string };

function exposureOf(risk: Risk): Exposure {
  const errors: string[] = [];
  for (const rule of risk.matchingRules) {
    if (rule.type === 'Always') return { status: 'True' };
    const a = answerOf(rule.promql!.promql);
    if (a === 'error') errors.push(TWO_SAMPLES);
    else return { status: a === 1 ? 'True' : 'False' };
  }
  const distinct = [...new Set(errors)]; // as Kubernetes aggregates errors: each message once
  return { status: 'Unknown', error: distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]` };
}

const unknownMessage = (r: Risk, error: string): string =>
  `Could not evaluate exposure to update risk ${r.name} (${error})\n  ${r.name} description: ${r.message}\n  ${r.name} URL: ${r.url}`;

function expectedRecommended(own: Risk[], definitions: Map<string, Risk>, accepted: Set<string> | undefined) {
  const rank = { True: 0, Unknown: 1, False: 2 } as const;
  let status: 'True' | 'Unknown' | 'False' = 'True';
  let reason = 'NotExposedToRisks';
  let message = 'The update is recommended, because none of the conditional update risks apply to this cluster.';
  const quoted: string[] = [];
  const fold = (s: typeof status, r: string) => {
    if (rank[s] > rank[status]) status = s;
    if (reason === 'NotExposedToRisks' || reason === 'AllExposedRisksAccepted' || reason === r) reason = r;
    else if (r !== 'NotExposedToRisks') reason = 'MultipleReasons';
  };
  for (const r of own) {
    const definition = definitions.get(r.name)!;
    const e = exposureOf(definition);
    if (e.status === 'Unknown') {
      fold('Unknown', 'EvaluationFailed');
      quoted.push(unknownMessage(definition, e.error));
    } else if (e.status === 'True' && accepted?.has(r.name)) {
      fold('True', 'AllExposedRisksAccepted');
      message =
        'The update is recommended, because either risk does not apply to this cluster or it is accepted by cluster admins.';
    } else if (e.status === 'True') {
      fold('False', /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/.test(r.name) ? r.name : 'ExposedToRisks');
      quoted.push(`${r.message} ${r.url}`);
    }
  }
  return { status, reason, message: quoted.length ? quoted.join('\n\n') : message };
}

interface Doc {
  nodes: Array<{ version: string; payload: string }>;
  edges?: Array<[number, number]>;
  conditionalEdges?: Array<{ edges: Array<{ from: string; to: string }>; risks: Risk[] }>;
}

/** The status the CVO writes at `version` for the public service's answer `doc`. */
function expectedStatus(doc: Doc, version: string, accepted: Set<string> | undefined) {
  const image = new Map(doc.nodes.map((n) => [n.version, n.payload]));
  const at = doc.nodes.findIndex((n) => n.version === version);
  const conditional = new Map<string, Risk[]>();
  for (const ce of doc.conditionalEdges ?? [])
    for (const e of ce.edges) if (e.from === version) conditional.set(e.to, ce.risks);
  const direct = (doc.edges ?? [])
    .filter(([f]) => f === at)
    .map(([, t]) => doc.nodes[t]!.version)
    .filter((v) => !conditional.has(v));
  // Each risk's definition from the highest target that carries it.
  const definitions = new Map<string, Risk>();
  const byVersionDesc = [...conditional.keys()].sort(semver.rcompare);
  for (const v of [...byVersionDesc].reverse()) for (const r of conditional.get(v)!) definitions.set(r.name, r);
  const updates = byVersionDesc.map((v) => ({
    version: v,
    image: image.get(v),
    risks: conditional.get(v)!,
    recommended: expectedRecommended(conditional.get(v)!, definitions, accepted),
  }));
  const available = [...direct, ...updates.filter((u) => u.recommended.status === 'True').map((u) => u.version)].sort(
    semver.rcompare,
  );
  // conditionalUpdateRisks: each risk once, by name (as a real cluster's status lists them).
  const risks = [...definitions.values()]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((r) => {
      const e = exposureOf(r);
      return {
        name: r.name,
        applies: e.status,
        reason: e.status === 'Unknown' ? 'EvaluationFailed' : e.status === 'True' ? 'Match' : 'NotMatch',
        message: e.status === 'Unknown' ? unknownMessage(r, e.error) : '',
      };
    });
  return { updates, available, risks };
}

/** Up to PER_CHANNEL versions of a channel with conditional updates, spread over it, and one without. */
function statesOf(doc: Doc): string[] {
  const withRisks = new Set((doc.conditionalEdges ?? []).flatMap((ce) => ce.edges.map((e) => e.from)));
  const risky = doc.nodes.map((n) => n.version).filter((v) => withRisks.has(v));
  const step = Math.max(1, Math.floor(risky.length / PER_CHANNEL));
  const picked = risky.filter((_, i) => i % step === 0).slice(0, PER_CHANNEL);
  const plain = doc.nodes.find((n) => !withRisks.has(n.version));
  return plain ? [...picked, plain.version] : picked;
}

describe.runIf(conformanceAvailable())('the agent on the real graphs of 2024-08-09', () => {
  it('writes what the cluster-version-operator writes, in a few hundred (channel, version) states', async () => {
    const server = await startServer({ graphData: join(CONFORMANCE_DIR, SET, 'graph-data') });
    cleanup.add(() => server.close());
    const prometheusUrl = (await prometheusStub(samplesOf, cleanup)).url;
    const cv = kindNamed('ClusterVersion');
    let states = 0;
    let conditionalUpdates = 0;
    const reasons = new Map<string, number>();
    for (const { channel, doc } of expectedChannels(SET)) {
      for (const version of statesOf(doc as Doc)) {
        // Every other state with the accept-risks feature on, accepting the risks whose names hash even.
        const feature = states % 2 === 1;
        const state = new ClusterState();
        const accepted = (doc as Doc).conditionalEdges?.flatMap((ce) => ce.risks.map((r) => r.name)) ?? [];
        const accept = [...new Set(accepted)].filter((n) => createHash('sha256').update(n).digest()[0]! % 2 === 0);
        state.create(cv, undefined, {
          apiVersion: 'config.openshift.io/v1',
          kind: 'ClusterVersion',
          metadata: { name: 'version' },
          spec: {
            clusterID: '8f3c5e2a-4b6d-4e8f-9a1b-2c3d4e5f6a7b',
            channel,
            upstream: `${server.url}/api/upgrades_info/v1/graph`,
            ...(feature && { desiredUpdate: { version, acceptRisks: accept.map((name) => ({ name })) } }),
          },
          status: {
            desired: { version, image: (doc as Doc).nodes.find((n) => n.version === version)!.payload },
            observedGeneration: 1,
            versionHash: 'x',
            availableUpdates: null,
          },
        });
        const api = new InMemoryClusterApi(state, { fieldManager: 'cincy-agent' });
        const evaluator = new RiskEvaluator({ url: prometheusUrl }, Date.now, { minIntervalMs: 0 });
        const poll = await new UpdatesPoller({
          api,
          evaluator,
          acceptRisks: feature ? 'enabled' : 'disabled',
        }).poll();
        const where = `${channel} at ${version}${feature ? ' (accept-risks on)' : ''}`;
        expect(poll.retrieved.status, where).toBe('True');
        const got = (state.get(cv, undefined, 'version') as unknown as ClusterVersion).status;
        const want = expectedStatus(doc as Doc, version, feature ? new Set(accept) : undefined);

        expect(
          (got.availableUpdates ?? []).map((r) => r.version),
          where,
        ).toEqual(want.available);
        expect(
          (got.conditionalUpdates ?? []).map((c) => ({
            version: c.release.version,
            image: c.release.image,
            // With the feature on each risk also carries its Applies condition, checked below.
            risks: c.risks.map(({ conditions: _, ...risk }: Risk & { conditions?: unknown }) => risk),
            recommended: (({ status, reason, message }) => ({ status, reason, message }))(
              c.conditions.find((k) => k.type === 'Recommended')!,
            ),
          })),
          where,
        ).toEqual(want.updates);
        if (feature) {
          expect(
            (got.conditionalUpdates ?? []).map((c) => c.riskNames),
            where,
          ).toEqual(want.updates.map((u) => u.risks.map((r) => r.name)));
          expect(
            (got.conditionalUpdateRisks ?? []).map((r) => {
              const a = r.conditions.find((k) => k.type === 'Applies')!;
              return { name: r.name, applies: a.status, reason: a.reason, message: a.message };
            }),
            where,
          ).toEqual(want.risks);
          const applies = new Map(want.risks.map((r) => [r.name, r.applies]));
          for (const c of got.conditionalUpdates ?? [])
            for (const r of c.risks as Array<Risk & { conditions: Array<{ type: string; status: string }> }>)
              expect(r.conditions.find((k) => k.type === 'Applies')?.status, `${where}: ${r.name}`).toBe(
                applies.get(r.name),
              );
        } else {
          expect(got.conditionalUpdateRisks, where).toBeUndefined();
          expect(
            (got.conditionalUpdates ?? []).some((c) => c.riskNames),
            where,
          ).toBe(false);
        }
        states += 1;
        conditionalUpdates += want.updates.length;
        for (const u of want.updates) reasons.set(u.recommended.reason, (reasons.get(u.recommended.reason) ?? 0) + 1);
      }
    }
    console.log(
      `agent vs the CVO's rules: ${states} (channel, version) states, ${conditionalUpdates} conditional updates, reasons ${JSON.stringify(Object.fromEntries(reasons))}`,
    );
    expect(states).toBeGreaterThanOrEqual(300);
    for (const reason of ['NotExposedToRisks', 'EvaluationFailed', 'MultipleReasons', 'AllExposedRisksAccepted'])
      expect(reasons.get(reason) ?? 0, `states where the Recommended reason is ${reason}`).toBeGreaterThan(0);
  }, 300_000);
});
