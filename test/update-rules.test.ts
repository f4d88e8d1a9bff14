// The decisions of an update that need no cluster: resolving spec.desiredUpdate, the preconditions,
// the Upgradeable condition, the ClusterOperator gate with its reasons and timings, and what
// `adm upgrade --to/--to-image` asks for.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ReleaseVerifier } from '../src/agent/update/verify.js';
import { generateKeys, signPayload } from '../src/cli/signatures.js';
import { TrustStore } from '../src/signatures/verify.js';
import { preconditions, upgradeableFrom } from '../src/agent/update/preconditions.js';
import { resolveDesired, type Target } from '../src/agent/update/resolve.js';
import { FAIL_AFTER_MS, gateOperators, operatorReason } from '../src/agent/update/gate.js';
import type { ClusterVersion } from '../src/agent/clusterVersion.js';
import type { Condition } from '../src/agent/conditions.js';
import { desiredUpdateFor } from '../src/cli/adm.js';
import { upgradeReport } from '../src/cli/adm/report.js';

const img = (v: string): string => `quay.example/ocp/release@sha256:${Buffer.from(v).toString('hex').padEnd(64, '0')}`;
const rel = (v: string) => ({ version: v, image: img(v) });
const cond = (type: string, status: string, reason = '', message = ''): Condition => ({
  type,
  status: status as Condition['status'],
  lastTransitionTime: '2026-01-01T00:00:00Z',
  reason,
  message,
});

function clusterVersion(
  desiredUpdate?: ClusterVersion['spec']['desiredUpdate'],
  status: Partial<ClusterVersion['status']> = {},
): ClusterVersion {
  return {
    metadata: { generation: 2 },
    spec: { clusterID: '00000000-0000-4000-8000-000000000000', channel: 'stable-4.16', desiredUpdate },
    status: {
      desired: rel('4.15.9'),
      availableUpdates: [rel('4.16.5')],
      conditionalUpdates: [
        {
          release: rel('4.16.6'),
          risks: [{ name: 'OnAWS', url: 'https://x/1', message: 'AWS hurts.', matchingRules: [{ type: 'Always' }] }],
          conditions: [cond('Recommended', 'False', 'OnAWS', 'AWS hurts. https://x/1')],
        },
      ],
      ...status,
    },
  };
}

describe('resolving spec.desiredUpdate (step 1)', () => {
  it('takes a version only from the recommendations, or a conditional update whose risks are accepted', () => {
    expect(resolveDesired(clusterVersion())).toEqual({ kind: 'none' });
    expect(resolveDesired(clusterVersion({ version: '4.15.9' }))).toEqual({ kind: 'none' });
    const ok = resolveDesired(clusterVersion({ version: '4.16.5' }));
    expect(ok).toMatchObject({ kind: 'target', target: { release: rel('4.16.5'), force: false, explicit: false } });
    const notRecommended = resolveDesired(clusterVersion({ version: '4.16.6' }));
    expect(notRecommended).toMatchObject({ kind: 'invalid' });
    expect((notRecommended as { message: string }).message).toContain('accept its risks (OnAWS)');
    expect(resolveDesired(clusterVersion({ version: '4.16.6', acceptRisks: [{ name: 'OnAWS' }] }))).toMatchObject({
      kind: 'target',
      target: { release: rel('4.16.6') },
    });
    expect(resolveDesired(clusterVersion({ version: '4.16.9' }))).toEqual({
      kind: 'invalid',
      message:
        'spec.desiredUpdate.version: Invalid value: "4.16.9": when image is empty the update must be a previous version or an available update',
    });
  });

  it('takes a version the cluster ran before (for the rollback precondition to judge), never a not-recommended image without accepted risks', () => {
    const cv = clusterVersion(
      { version: '4.15.8' },
      {
        history: [
          {
            state: 'Completed',
            startedTime: 't',
            completionTime: 't',
            version: '4.15.8',
            image: img('4.15.8'),
            verified: true,
          },
        ],
      },
    );
    expect(resolveDesired(cv)).toMatchObject({ kind: 'target', target: { release: rel('4.15.8'), explicit: true } });
    expect(resolveDesired(clusterVersion({ image: img('4.16.6') }))).toMatchObject({
      kind: 'invalid',
      message: expect.stringContaining('spec.desiredUpdate.image'),
    });
    expect(resolveDesired(clusterVersion({ image: img('4.16.6'), acceptRisks: [{ name: 'OnAWS' }] }))).toMatchObject({
      kind: 'target',
    });
  });

  it('takes an image as given, marked explicit when no recommendation names it', () => {
    expect(resolveDesired(clusterVersion({ image: img('4.16.5') }))).toMatchObject({
      kind: 'target',
      target: { release: rel('4.16.5'), explicit: false },
    });
    expect(resolveDesired(clusterVersion({ image: img('4.17.1'), force: true }))).toMatchObject({
      kind: 'target',
      target: { release: { image: img('4.17.1') }, explicit: true, force: true },
    });
  });
});

describe('preconditions (step 5)', () => {
  const target = (v: string, extra: Partial<Target> = {}): Target => ({
    release: rel(v),
    force: false,
    explicit: false,
    ...extra,
  });
  const names = (ps: ReturnType<typeof preconditions>): string[] =>
    ps.map((p) => `${p.name}:${p.blocking ? 'blocking' : 'warning'}`);

  it('blocks a rollback, a hop over a minor version, and a minor update while not Upgradeable', () => {
    expect(preconditions('4.15.9', target('4.16.5'), '4.16.5', cond('Upgradeable', 'True'))).toEqual([]);
    expect(names(preconditions('4.16.5', target('4.16.3'), '4.16.3', undefined))).toEqual([
      'ClusterVersionRollback:blocking',
    ]);
    expect(names(preconditions('4.15.9', target('4.17.1'), '4.17.1', undefined))).toEqual(['MinorVersionHop:blocking']);
    const notUpgradeable = cond('Upgradeable', 'False', 'AdminAckRequired', 'Kubernetes 1.29 removes APIs');
    const blocked = preconditions('4.15.9', target('4.16.5'), '4.16.5', notUpgradeable);
    expect(blocked).toEqual([
      {
        name: 'ClusterVersionUpgradeable',
        reason: 'AdminAckRequired',
        message: 'Kubernetes 1.29 removes APIs',
        blocking: true,
      },
    ]);
    // A z-stream update is not a minor update: Upgradeable=False does not block it.
    expect(preconditions('4.16.3', target('4.16.5'), '4.16.5', notUpgradeable)).toEqual([]);
  });

  it('warns, without blocking, about a target that is not recommended or not in the recommendations', () => {
    expect(
      names(
        preconditions(
          '4.15.9',
          target('4.16.6', { recommended: cond('Recommended', 'False', 'OnAWS', 'AWS hurts.') }),
          '4.16.6',
          undefined,
        ),
      ),
    ).toEqual(['RecommendedUpdate:warning']);
    expect(names(preconditions('4.15.9', target('4.16.5', { explicit: true }), '4.16.5', undefined))).toEqual([
      'RecommendedUpdate:warning',
    ]);
  });

  it('derives Upgradeable from the ClusterOperators', () => {
    const co = (name: string, ...conditions: Condition[]) => ({ metadata: { name }, status: { conditions } });
    expect(upgradeableFrom([co('etcd', cond('Upgradeable', 'True'))], 'now').status).toBe('True');
    const one = upgradeableFrom(
      [co('etcd', cond('Upgradeable', 'False', 'AdminAckRequired', 'ack it')), co('dns')],
      'now',
    );
    expect(one).toMatchObject({
      status: 'False',
      reason: 'AdminAckRequired',
      message: 'Cluster operator etcd should not be upgraded between minor versions: ack it',
    });
    const two = upgradeableFrom(
      [co('etcd', cond('Upgradeable', 'False', 'A', 'a')), co('dns', cond('Upgradeable', 'False', 'B', 'b'))],
      'now',
    );
    expect(two).toMatchObject({ status: 'False', reason: 'ClusterOperatorsNotUpgradeable' });
  });
});

describe('the ClusterOperator gate (step 9)', () => {
  const expected = { name: 'etcd', versions: [{ name: 'operator', version: '4.16.5' }] };
  const co = (versions: Array<{ name: string; version: string }>, ...conditions: Condition[]) => ({
    metadata: { name: 'etcd' },
    status: { versions, conditions },
  });
  const at = (v: string) => [{ name: 'operator', version: v }];
  const healthy = [cond('Available', 'True'), cond('Degraded', 'False')];

  it('names the reason in the order the CVO checks them', () => {
    expect(operatorReason(expected, co(at('4.16.5'), ...healthy))).toBeUndefined();
    expect(operatorReason(expected, undefined)).toBe('ClusterOperatorNotAvailable');
    expect(operatorReason(expected, co(at('4.16.5'), cond('Available', 'True')))).toBe('ClusterOperatorDegraded'); // missing Degraded counts as degraded
    expect(operatorReason(expected, co(at('4.15.9'), cond('Available', 'True'), cond('Degraded', 'True')))).toBe(
      'ClusterOperatorDegraded',
    );
    expect(operatorReason(expected, co(at('4.16.5'), cond('Available', 'False'), cond('Degraded', 'False')))).toBe(
      'ClusterOperatorNotAvailable',
    );
    expect(operatorReason(expected, co([], ...healthy))).toBe('ClusterOperatorNoVersions');
    expect(operatorReason(expected, co(at('4.15.9'), ...healthy))).toBe('ClusterOperatorUpdating');
  });

  it('waits, then fails a degraded operator after 40 minutes, and calls a slow one slow after 30', () => {
    const degraded = [co(at('4.15.9'), cond('Available', 'True'), cond('Degraded', 'True'))];
    const early = gateOperators([expected], degraded, FAIL_AFTER_MS - 1, '4.16.5', 100, 400);
    expect(early).toMatchObject({
      done: false,
      failing: { status: 'False' },
      progressing: { message: 'Working towards 4.16.5: 100 of 400 done (25% complete), waiting on etcd' },
    });
    const late = gateOperators([expected], degraded, FAIL_AFTER_MS, '4.16.5', 100, 400);
    expect(late.failing).toEqual({
      status: 'True',
      reason: 'ClusterOperatorDegraded',
      message: 'Cluster operator etcd is degraded',
    });
    expect(late.progressing.message).toBe(
      'Unable to apply 4.16.5: wait has exceeded 40 minutes for these operators: etcd',
    );

    const updating = [co(at('4.15.9'), ...healthy)];
    const slow = gateOperators([expected], updating, 31 * 60_000, '4.16.5', 100, 400);
    expect(slow.failing.status).toBe('False'); // slow is not failing
    expect(slow.progressing.message).toBe(
      'Working towards 4.16.5: 100 of 400 done (25% complete), waiting on etcd over 30 minutes which is longer than expected',
    );
    const mco = { name: 'machine-config', versions: expected.versions };
    const mcoStatus = [{ ...updating[0]!, metadata: { name: 'machine-config' } }];
    expect(gateOperators([mco], mcoStatus, 60 * 60_000, '4.16.5', 1, 2).progressing.message).toBe(
      'Working towards 4.16.5: 1 of 2 done (50% complete), waiting on machine-config',
    );
    expect(gateOperators([mco], mcoStatus, 90 * 60_000, '4.16.5', 1, 2).progressing.message).toBe(
      'Working towards 4.16.5: 1 of 2 done (50% complete), waiting on machine-config over 90 minutes which is longer than expected',
    );
    expect(gateOperators([expected], [co(at('4.16.5'), ...healthy)], 0, '4.16.5', 400, 400).done).toBe(true);
  });

  it('joins several failing operators', () => {
    const two = [
      {
        metadata: { name: 'etcd' },
        status: { versions: at('4.15.9'), conditions: [cond('Available', 'True'), cond('Degraded', 'True')] },
      },
      {
        metadata: { name: 'dns' },
        status: { versions: at('4.15.9'), conditions: [cond('Available', 'True'), cond('Degraded', 'True')] },
      },
    ];
    const v = gateOperators([expected, { ...expected, name: 'dns' }], two, FAIL_AFTER_MS, '4.16.5', 1, 2);
    expect(v.failing).toEqual({
      status: 'True',
      reason: 'ClusterOperatorsDegraded',
      message: 'Cluster operators etcd, dns are degraded',
    });
    const mixed = [
      two[0]!,
      {
        metadata: { name: 'dns' },
        status: { versions: at('4.15.9'), conditions: [cond('Available', 'False'), cond('Degraded', 'False')] },
      },
    ];
    expect(
      gateOperators([expected, { ...expected, name: 'dns' }], mixed, FAIL_AFTER_MS, '4.16.5', 1, 2).failing,
    ).toEqual({
      status: 'True',
      reason: 'MultipleErrors',
      message:
        'Multiple errors are preventing progress:\n* Cluster operator etcd is degraded\n* Cluster operator dns is not available',
    });
  });
});

describe('adm upgrade --to / --to-image', () => {
  it('asks for a recommended version with its image, and refuses what oc refuses', () => {
    const cv = clusterVersion();
    expect(desiredUpdateFor(cv, { to: '4.16.5' })).toEqual({
      version: '4.16.5',
      image: img('4.16.5'),
      force: false,
      acceptRisks: [],
    });
    expect(() => desiredUpdateFor(cv, { to: '4.16.9' })).toThrow(
      '--to: the update 4.16.9 is not one of the available updates: 4.16.5',
    );
    expect(() => desiredUpdateFor(cv, { to: '4.16.6' })).toThrow(
      /is available as a conditional update.*--allow-not-recommended\.\n {2}Reason: OnAWS/s,
    );
    expect(desiredUpdateFor(cv, { to: '4.16.6', allowNotRecommended: true })).toEqual({
      version: '4.16.6',
      image: img('4.16.6'),
      force: false,
      acceptRisks: [{ name: 'OnAWS' }],
    });
    expect(() => desiredUpdateFor(cv, { to: '4.15.9' })).toThrow('already at 4.15.9');
    const updating = clusterVersion(undefined, {
      history: [
        {
          state: 'Partial',
          startedTime: 't',
          completionTime: null,
          version: '4.15.9',
          image: img('4.15.9'),
          verified: true,
        },
      ],
    });
    expect(() => desiredUpdateFor(updating, { to: '4.15.9' })).toThrow(
      '--to: the cluster is already updating to 4.15.9',
    );
    expect(() => desiredUpdateFor(cv, {})).toThrow('exactly one of --to');
  });

  it('takes an image outside the recommendations only with --allow-explicit-upgrade, and a tag only with --force', () => {
    const cv = clusterVersion();
    expect(desiredUpdateFor(cv, { toImage: img('4.16.5') })).toMatchObject({ version: '4.16.5', image: img('4.16.5') });
    expect(() => desiredUpdateFor(cv, { toImage: img('4.17.1') })).toThrow('--allow-explicit-upgrade');
    expect(desiredUpdateFor(cv, { toImage: img('4.17.1'), allowExplicitUpgrade: true })).toEqual({
      image: img('4.17.1'),
      force: false,
      acceptRisks: [],
    });
    expect(() =>
      desiredUpdateFor(cv, { toImage: 'quay.example/ocp/release:4.17.1', allowExplicitUpgrade: true }),
    ).toThrow('not pinned by digest');
    // The image of a not-recommended update needs its risks accepted, as its version does.
    expect(() => desiredUpdateFor(cv, { toImage: img('4.16.6'), allowExplicitUpgrade: true })).toThrow(
      /^--to-image: the update 4\.16\.6 is not one of the recommended updates/,
    );
    expect(desiredUpdateFor(cv, { toImage: img('4.16.6'), allowNotRecommended: true })).toEqual({
      version: '4.16.6',
      image: img('4.16.6'),
      force: false,
      acceptRisks: [{ name: 'OnAWS' }],
    });
  });

  it('refuses a second update while one is in progress, and the report shows the progress', () => {
    const cv = clusterVersion(undefined, {
      conditions: [
        cond('Progressing', 'True', '', 'Working towards 4.16.5: 10 of 600 done (1% complete)'),
        cond('Failing', 'True', 'ClusterOperatorDegraded', 'Cluster operator etcd is degraded'),
      ],
    });
    expect(() => desiredUpdateFor(cv, { to: '4.16.5' })).toThrow('Already upgrading');
    const report = upgradeReport(cv, false).out;
    expect(
      report.startsWith(
        'Failing=True:\n\n  Reason: ClusterOperatorDegraded\n  Message: Cluster operator etcd is degraded\n\ninfo: An upgrade is in progress. Working towards 4.16.5: 10 of 600 done (1% complete)\n',
      ),
    ).toBe(true);
  });
});

describe('the report of adm upgrade, as oc prints it', () => {
  const settled = [
    cond('Failing', 'False'),
    cond('Progressing', 'False', '', 'Cluster version is 4.15.9'),
    cond('Upgradeable', 'True'),
  ];

  it('says it cannot refresh the updates it still lists, and cannot display them when it lists none', () => {
    const failed = cond(
      'RetrievedUpdates',
      'False',
      'RemoteFailed',
      'Unable to retrieve available updates: connect ECONNREFUSED',
    );
    const stale = upgradeReport(clusterVersion(undefined, { conditions: [...settled, failed] }), false);
    expect(stale.out).toBe(
      [
        'Cluster version is 4.15.9',
        '',
        'Upstream is unset, so the cluster will use an appropriate default.',
        'Channel: stable-4.16',
        '',
        'Recommended updates:',
        '',
        '  VERSION     IMAGE',
        `  4.16.5      ${img('4.16.5')}`,
        '',
        'Additional updates which are not recommended based on your cluster configuration are available, to view those re-run the command with --include-not-recommended.',
        '',
      ].join('\n'),
    );
    expect(stale.err).toBe(
      'warning: Cannot refresh available updates:\n  Reason: RemoteFailed\n  Message: Unable to retrieve available updates: connect ECONNREFUSED\n\n',
    );
    const notFound = cond(
      'RetrievedUpdates',
      'False',
      'VersionNotFound',
      'Unable to retrieve available updates: currently reconciling cluster version 4.15.9 not found in the "candidate-4.17" channel',
    );
    const none = upgradeReport(
      clusterVersion(undefined, { conditions: [...settled, notFound], availableUpdates: null, conditionalUpdates: [] }),
      false,
    );
    expect(none.out).toBe(
      'Cluster version is 4.15.9\n\nUpstream is unset, so the cluster will use an appropriate default.\nChannel: stable-4.16\n',
    );
    expect(none.err).toBe(
      `warning: Cannot display available updates:\n  Reason: VersionNotFound\n  Message: ${notFound.message}\n\n`,
    );
  });
});

describe('release verification (step 2)', () => {
  it('needs every keyring (each file of --trust-keys) satisfied by a signature; spec.signatureStores replace the configured stores', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cincy-verify-'));
    try {
      const image = img('4.16.5');
      const hex = image.split('sha256:')[1]!;
      const keys = join(dir, 'keys');
      const trust = join(dir, 'trust');
      mkdirSync(trust);
      const signed: string[] = [];
      for (const kid of ['alpha', 'beta']) {
        const k = await generateKeys({ alg: 'EdDSA', kid, out: keys });
        copyFileSync(k.jwksFile, join(trust, `${kid}.jwks.json`));
        signed.push(await signPayload(k.privateFile, image));
      }
      const store = (name: string, signatures: string[]): string => {
        mkdirSync(join(dir, name, `sha256=${hex}`), { recursive: true });
        signatures.forEach((sig, i) => writeFileSync(join(dir, name, `sha256=${hex}`, `signature-${i + 1}`), sig));
        return pathToFileURL(join(dir, name)).href;
      };
      const noConfigMaps = { listNamespacedConfigMap: async () => ({ items: [] }) } as unknown as k8s.CoreV1Api;
      const verifier = async (stores: string[]): Promise<ReleaseVerifier> =>
        new ReleaseVerifier(await TrustStore.load(trust), noConfigMaps, stores);

      const onlyAlpha = await (await verifier([store('one', [signed[0]!])])).verify(image);
      expect(onlyAlpha).toEqual({
        verified: false,
        message: `The update cannot be verified: unable to verify sha256:${hex} against keyrings: beta.jwks.json`,
      });
      const both = await (await verifier([store('two', signed)])).verify(image);
      expect(both).toMatchObject({ verified: true, keyId: 'alpha, beta' });
      // spec.signatureStores replace the configured stores.
      expect(
        await (await verifier([store('three', signed)])).verify(image, [pathToFileURL(join(dir, 'empty')).href]),
      ).toMatchObject({ verified: false, message: expect.stringContaining('(no signature found)') });
      expect(await (await verifier([])).verify('quay.example/ocp/release:4.16.5')).toEqual({
        verified: false,
        message: 'The update cannot be verified: release images that are not accessed via digest cannot be verified',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
