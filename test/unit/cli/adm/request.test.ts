// What `adm upgrade --to/--to-image/--to-latest/--to-multi-arch` asks for, as oc decides (src/cli/adm/request.ts):
// a decision of an update that needs no cluster. The other decisions are in test/unit/agent/update/ (resolve,
// preconditions, adminAcks, gate, verify), the report of `adm upgrade` in report.test.ts.
import { describe, expect, it } from 'vitest';
import type { DesiredUpdate } from '../../../../src/agent/clusterVersion.js';
import { checkFlags, planUpdate, type UpgradePlan } from '../../../../src/cli/adm/request.js';
import { upgradeReport } from '../../../../src/cli/adm/report.js';
import { clusterVersion, cond, img, rel } from '../../../support/clusterVersions.js';

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
