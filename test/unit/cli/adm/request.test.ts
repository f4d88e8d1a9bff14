// The decisions of an update that need no cluster: resolving spec.desiredUpdate, the preconditions,
// the Upgradeable condition, the ClusterOperator gate with its reasons and timings, and what
// `adm upgrade --to/--to-image` asks for.
import type { ClusterApi } from '../../../../src/cluster/api.js';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ReleaseVerifier } from '../../../../src/agent/update/verify.js';
import { generateKeys } from '../../../../src/cli/signing.js';
import { signPayload } from '../../../support/signing.js';
import { TrustStore } from '../../../../src/signatures/verify.js';
import { preconditions, upgradeableFrom } from '../../../../src/agent/update/preconditions.js';
import { adminAckHold } from '../../../../src/agent/update/adminAcks.js';
import { resolveDesired, type Target } from '../../../../src/agent/update/resolve.js';
import { FAIL_AFTER_MS, gateOperators, operatorReason } from '../../../../src/agent/update/gate.js';
import type { ClusterVersion, DesiredUpdate } from '../../../../src/agent/clusterVersion.js';
import type { Condition } from '../../../../src/agent/conditions.js';
import { checkFlags, planUpdate, type UpgradePlan } from '../../../../src/cli/adm/request.js';
import { upgradeReport } from '../../../../src/cli/adm/report.js';

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
  it('takes the multi-architecture release of the current version once the poll lists it (--to-multi-arch)', () => {
    const asked = { architecture: 'Multi', version: '4.15.9' };
    expect(resolveDesired(clusterVersion(asked))).toEqual({ kind: 'none' });
    const multi = { version: '4.15.9', image: img('4.15.9-multi'), architecture: 'Multi' };
    expect(resolveDesired(clusterVersion(asked, { availableUpdates: [multi] }))).toEqual({
      kind: 'target',
      target: { release: multi, force: false, explicit: false },
    });
    // Once the cluster runs it, there is nothing more to do.
    const migrated = clusterVersion(asked, { desired: multi, availableUpdates: [] });
    expect(resolveDesired(migrated)).toEqual({ kind: 'none' });
  });

  it('takes a version from the recommendations or the conditional updates, as the CVO does', () => {
    expect(resolveDesired(clusterVersion())).toEqual({ kind: 'none' });
    expect(resolveDesired(clusterVersion({ version: '4.15.9' }))).toEqual({ kind: 'none' });
    const ok = resolveDesired(clusterVersion({ version: '4.16.5' }));
    expect(ok).toMatchObject({ kind: 'target', target: { release: rel('4.16.5'), force: false, explicit: false } });
    // Not recommended: taken, with its Recommended condition for the warning and its risks for acceptance.
    const notRecommended = resolveDesired(clusterVersion({ version: '4.16.6' }));
    expect(notRecommended).toMatchObject({
      kind: 'target',
      target: { release: rel('4.16.6'), recommended: { status: 'False', reason: 'OnAWS' } },
    });
    expect(
      (notRecommended as { target: { conditional: { risks: Array<{ name: string }> } } }).target.conditional.risks.map(
        (r) => r.name,
      ),
    ).toEqual(['OnAWS']);
    expect(resolveDesired(clusterVersion({ version: '4.16.9' }))).toEqual({
      kind: 'invalid',
      message:
        'spec.desiredUpdate.version: Invalid value: "4.16.9": when image is empty the update must be a previous version or an available update',
    });
  });

  it('takes a version the cluster ran before (for the rollback precondition to judge), and the image of a conditional update', () => {
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
      kind: 'target',
      target: { release: rel('4.16.6'), explicit: false },
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

describe('administrator acknowledgements (admin-gates, admin-acks)', () => {
  const gate = 'ack-4.15-kube-1.29-api-removals-in-4.16';
  it('holds minor updates back for a gate of the current minor version until it is acknowledged with "true"', () => {
    expect(adminAckHold('4.15.9', { [gate]: 'APIs go away.' }, {})).toEqual({
      reason: 'AdminAckRequired',
      message: 'APIs go away.',
    });
    expect(adminAckHold('4.15.9', { [gate]: 'APIs go away.' }, { [gate]: 'yes' })?.reason).toBe('AdminAckRequired');
    expect(adminAckHold('4.15.9', { [gate]: 'APIs go away.' }, { [gate]: 'true' })).toBeUndefined();
    expect(adminAckHold('4.16.0', { [gate]: 'APIs go away.' }, {})).toBeUndefined();
  });
  it('names a missing ConfigMap, a malformed gate and an empty description, and joins several reasons', () => {
    expect(adminAckHold('4.15.9', undefined, {})?.reason).toBe('UnableToAccessAdminGatesConfigMap');
    expect(adminAckHold('4.15.9', {}, undefined)?.reason).toBe('UnableToAccessAdminAcksConfigMap');
    expect(adminAckHold('4.15.9', { 'ack-4.15': 'x' }, {})?.reason).toBe('AdminAckConfigMapGateNameError');
    expect(adminAckHold('4.15.9', { [gate]: '' }, {})?.reason).toBe('AdminAckConfigMapGateValueError');
    expect(adminAckHold('4.15.9', { [gate]: 'b', 'ack-4.15-other-gate': 'a', 'bad-gate': 'x' }, {})).toMatchObject({
      reason: 'MultipleReasons',
    });
    const both = upgradeableFrom(
      [{ metadata: { name: 'etcd' }, status: { conditions: [cond('Upgradeable', 'False', 'R', 'etcd says no')] } }],
      'now',
      { reason: 'AdminAckRequired', message: 'ack it' },
    );
    expect(both).toMatchObject({ status: 'False', reason: 'MultipleReasons' });
    expect(both.message).toContain('ack it\nCluster operator etcd should not be upgraded');
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

describe('adm upgrade --to / --to-image / --to-latest / --to-multi-arch, as oc decides', () => {
  const requested = (p: UpgradePlan): DesiredUpdate => {
    if (p.kind !== 'request') throw new Error(`not a request: ${p.info}`);
    return p.update;
  };

  it('asks for a recommended version with its image, and refuses what oc refuses in its words', () => {
    const cv = clusterVersion();
    const plan = planUpdate(cv, { to: '4.16.5' });
    expect(plan).toEqual({
      kind: 'request',
      update: { version: '4.16.5', image: img('4.16.5') },
      requested: 'Requested update to 4.16.5',
      warnings: [],
    });
    expect(() => planUpdate(cv, { to: '4.16.9' })).toThrow(
      'the update is not one of the possible targets: 4.16.5. specify --to-image to continue with the update.',
    );
    expect(() => planUpdate(cv, { to: 'four' })).toThrow('--to must be a semantic version');
    expect(() => planUpdate(cv, { to: '4.16.5', toImage: img('4.16.5') })).toThrow(
      'only one of --to or --to-image may be provided',
    );
    expect(() => planUpdate(cv, { to: '4.16.6' })).toThrow(
      'the update 4.16.6 is not one of the recommended updates, but is available as a conditional update. To accept the Recommended=False risk and to proceed with update use --allow-not-recommended.\n  Reason: OnAWS\n  Message: AWS hurts. https://x/1',
    );
    const none = clusterVersion(undefined, { availableUpdates: null });
    expect(() => planUpdate(none, { to: '4.16.9' })).toThrow(
      'no recommended updates, specify --to-image to continue with the update or wait for new updates to be available.',
    );
    const failed = clusterVersion(undefined, {
      conditions: [cond('RetrievedUpdates', 'False', 'VersionNotFound', 'Unable to retrieve available updates: x')],
    });
    expect(() => planUpdate(failed, { to: '4.16.9' })).toThrow(
      'cannot refresh available updates:\n  Reason: VersionNotFound\n  Message: Unable to retrieve available updates: x\n\nspecify --to-image to continue with the update.',
    );
  });

  it('says the cluster is already at the version or image asked for, and changes nothing', () => {
    const cv = clusterVersion();
    expect(planUpdate(cv, { to: '4.15.9' })).toEqual({
      kind: 'info',
      info: 'info: Cluster is already at version 4.15.9',
      warnings: [],
    });
    expect(planUpdate(cv, { toImage: img('4.15.9') })).toMatchObject({
      kind: 'info',
      info: `info: Cluster is already at ${img('4.15.9')}`,
    });
  });

  it('warns what --allow-not-recommended bypasses, and leaves the accepted risks as they are', () => {
    const plan = planUpdate(clusterVersion(), { to: '4.16.6', allowNotRecommended: true });
    expect(requested(plan)).toEqual({ version: '4.16.6', image: img('4.16.6') });
    const kept = planUpdate(clusterVersion({ acceptRisks: [{ name: 'Older' }] }), {
      to: '4.16.6',
      allowNotRecommended: true,
    });
    expect(requested(kept)).toEqual({ version: '4.16.6', image: img('4.16.6'), acceptRisks: [{ name: 'Older' }] });
    expect(plan.warnings).toEqual([
      'warning: with --allow-not-recommended you have accepted the risks with 4.16.6 and bypassed Recommended=False OnAWS: AWS hurts. https://x/1',
    ]);
  });

  it('--to-latest takes the highest available update, a not-recommended one only when allowed', () => {
    const cv = clusterVersion(undefined, { availableUpdates: [rel('4.16.2'), rel('4.16.5'), rel('4.16.3')] });
    expect(requested(planUpdate(cv, { toLatest: true }))).toEqual({ version: '4.16.5', image: img('4.16.5') });
    const allowed = planUpdate(cv, { toLatest: true, allowNotRecommended: true });
    expect(requested(allowed)).toEqual({ version: '4.16.6', image: img('4.16.6') });
    expect(allowed.warnings[0]).toMatch(
      /^warning: with --allow-not-recommended you have accepted the risks with 4\.16\.6/,
    );
    const latest = clusterVersion(undefined, { availableUpdates: null });
    expect(planUpdate(latest, { toLatest: true })).toMatchObject({
      kind: 'info',
      info: 'info: Cluster is already at the latest available version 4.15.9',
    });
    const nothing = clusterVersion(undefined, { availableUpdates: null, conditionalUpdates: [] });
    expect(() => planUpdate(nothing, { toLatest: true, allowNotRecommended: true })).toThrow(
      'no recommended or conditional updates, specify --to-image to continue with an update or wait for new updates to be available.',
    );
  });

  it('takes an image outside the recommendations only with --allow-explicit-upgrade, and a tag only with --force', () => {
    const cv = clusterVersion();
    // The same digest under another name is the same release.
    const mirrored = `mirror.example/ocp/release@${img('4.16.5').split('@')[1]}`;
    expect(requested(planUpdate(cv, { toImage: mirrored }))).toEqual({ version: '4.16.5', image: mirrored });
    expect(() => planUpdate(cv, { toImage: img('4.17.1') })).toThrow(
      'the update is not one of the possible targets: 4.16.5. specify --allow-explicit-upgrade to continue with the update.',
    );
    const explicit = planUpdate(cv, { toImage: img('4.17.1'), allowExplicitUpgrade: true });
    expect(explicit).toEqual({
      kind: 'request',
      update: { image: img('4.17.1') },
      requested: `Requested update to release image ${img('4.17.1')}`,
      warnings: [
        'warning: The requested upgrade image is not one of the available updates. You have used --allow-explicit-upgrade for the update to proceed anyway',
      ],
    });
    const tag = 'quay.example/ocp/release:4.17.1';
    expect(() => planUpdate(cv, { toImage: tag, allowExplicitUpgrade: true })).toThrow(
      '--to-image must be a by-digest pull spec, unless --force is also set',
    );
    const forced = planUpdate(cv, { toImage: tag, allowExplicitUpgrade: true, force: true });
    expect(requested(forced)).toEqual({ image: tag, force: true });
    expect(forced.warnings[0]).toMatch(/^warning: Using by-tag pull specs is dangerous/);
    expect(forced.warnings).toContain(
      'warning: --force overrides cluster verification of your supplied release image and waives any update precondition failures. Only use this if you are testing unsigned release images or you are working around a known bug in the cluster-version operator and you have verified the authenticity of the provided image yourself.',
    );
    expect(() => planUpdate(cv, { toImage: '4.17.1' })).toThrow(
      '--to-image must be a valid image pull spec: no registry or repository specified',
    );
    // The image of a not-recommended update needs --allow-not-recommended, as its version does.
    expect(() => planUpdate(cv, { toImage: img('4.16.6'), allowExplicitUpgrade: true })).toThrow(
      /^the update 4\.16\.6 is not one of the recommended updates/,
    );
  });

  it('asks for the multi-architecture release of the current version, once', () => {
    const plan = planUpdate(clusterVersion({ acceptRisks: [{ name: 'Old' }] }), { toMultiArch: true });
    expect(plan).toMatchObject({
      kind: 'request',
      update: { architecture: 'Multi', version: '4.15.9', acceptRisks: [{ name: 'Old' }] },
      requested: 'Requested update to multi cluster architecture',
    });
    expect(() =>
      planUpdate(clusterVersion({ architecture: 'Multi', version: '4.15.9' }), { toMultiArch: true }),
    ).toThrow('info: Update to multi cluster architecture has already been requested');
    expect(() => planUpdate(clusterVersion(), { toMultiArch: true, to: '4.16.5' })).toThrow(
      '--to-multi-arch may not be used with --to, --to-image, or --to-latest',
    );
    expect(() => checkFlags({ clear: true, toLatest: true })).toThrow(
      '--clear may not be specified with any other flags',
    );
  });

  it('refuses a second update while one is in progress unless told, and the report shows the progress', () => {
    const cv = clusterVersion(undefined, {
      conditions: [
        cond('Progressing', 'True', '', 'Working towards 4.16.5: 10 of 600 done (1% complete)'),
        cond('Failing', 'True', 'ClusterOperatorDegraded', 'Cluster operator etcd is degraded'),
      ],
    });
    const guards =
      'the cluster is experiencing an error reconciling "4.15.9":\n\n  Reason: ClusterOperatorDegraded\n  Message: Cluster operator etcd is degraded\n\nthe cluster is already upgrading:\n\n  Reason: \n  Message: Working towards 4.16.5: 10 of 600 done (1% complete)';
    expect(() => planUpdate(cv, { to: '4.16.5' })).toThrow(
      `${guards}\n\nIf you want to upgrade anyway, use --allow-upgrade-with-warnings.`,
    );
    expect(planUpdate(cv, { to: '4.16.5', allowUpgradeWithWarnings: true }).warnings).toEqual([
      `warning: --allow-upgrade-with-warnings is bypassing: ${guards}`,
    ]);
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

  it('shows Upgradeable=False as oc does, and says so when no update is not recommended', () => {
    const blocked = cond(
      'Upgradeable',
      'False',
      'AdminAckRequired',
      'Kubernetes 1.29 removes APIs.\nAcknowledge first.',
    );
    const cv = clusterVersion(undefined, {
      conditions: [...settled.filter((c) => c.type !== 'Upgradeable'), blocked, cond('RetrievedUpdates', 'True')],
      conditionalUpdates: [],
    });
    const report = upgradeReport(cv, true);
    expect(report.out).toBe(
      [
        'Cluster version is 4.15.9',
        '',
        'Upgradeable=False',
        '',
        '  Reason: AdminAckRequired',
        '  Message: Kubernetes 1.29 removes APIs.',
        '  Acknowledge first.',
        '',
        'Upstream is unset, so the cluster will use an appropriate default.',
        'Channel: stable-4.16',
        '',
        'Recommended updates:',
        '',
        '  VERSION     IMAGE',
        `  4.16.5      ${img('4.16.5')}`,
        '',
        'No updates which are not recommended based on your cluster configuration are available.',
        '',
      ].join('\n'),
    );
    expect(report.err).toBe('');
    // Without conditions at all, oc warns that it knows nothing of Failing and Progressing.
    const bare = upgradeReport(clusterVersion(undefined, { conditions: [] }), true);
    expect(bare.err).toBe(
      'warning: No current Failing info, see `oc describe clusterversion` for more details.\nwarning: No current Progressing info, see `oc describe clusterversion` for more details.\n',
    );
    expect(bare.out).toContain(
      '\nSupported but not recommended updates:\n\n  Version: 4.16.6\n  Image: ' +
        img('4.16.6') +
        '\n  Recommended: False\n  Reason: OnAWS\n  Message: AWS hurts. https://x/1\n',
    );
  });

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
      const noConfigMaps = { list: async () => ({ items: [], metadata: {} }) } as unknown as ClusterApi;
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
