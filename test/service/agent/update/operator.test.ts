// The update executor in-process (src/agent/update/operator.ts), as the cluster-version-operator's scenario
// tests run it: the operator's loop against the mock cluster's API server and simulated controllers in this
// process, on a clock moved by hand; the update service in this process too (test/support/updateRig.ts). An
// update of an hour of cluster time takes seconds, and a test can make the API fail where it wants. (One
// process-level test, test/e2e/update.test.ts, runs the whole flow as a user does.) `adm upgrade status` on
// the update under way is in test/service/cli/adm/status.test.ts, the agent on a real cluster in
// test/service/agent/run.test.ts.
import { describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../../../src/agent/clusterVersion.js';
import { PROGRESS } from '../../../../src/agent/update/progress.js';
import { TIMING } from '../../../../src/agent/update/timing.js';
import { kindNamed } from '@cincy/simulator/apiserver/kinds';
import { documentCount, loadPayload } from '../../../../src/payload/load.js';
import { PayloadStore } from '../../../../src/payload/store.js';
import { taskGraph } from '../../../../src/payload/taskGraph.js';
import type { RunningOperator } from '../../../support/inProcessAgent.js';
import type { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { useUpdateRig } from '../../../support/updateRig.js';
import { clearUpdate } from '../../../../src/cli/adm/clear.js';
import { image, KID } from '../../../support/updateFixtures.js';

const { rig, fixtures } = useUpdateRig();

const condition = (cv: ClusterVersion, type: string) => cv.status.conditions?.find((c) => c.type === type);
const history0 = (c: InProcessCluster) => c.cv().status.history?.[0];
const stagesDone = (c: InProcessCluster): number =>
  Number(
    (c.get('ConfigMap', PROGRESS.namespace, PROGRESS.name)?.data as Record<string, string> | undefined)?.stagesDone ??
      0,
  );
const applied = (op: RunningOperator) =>
  op.lines.filter((l) => l.msg === 'applied') as unknown as Array<{ file: string; runlevel: number }>;
const manifestsOf = (version: string) =>
  loadPayload(new PayloadStore(fixtures().payloads).pathOf(image(version))).manifests;
const stagesOf = (version: string) => taskGraph(manifestsOf(version));
const documentsOf = (version: string): number => documentCount(manifestsOf(version));

describe('the update executor, in-process', () => {
  it('applies every runlevel in order and completes, the operator handing over to its new self', async () => {
    const r = await rig();
    await r.ask({ to: '4.16.5' });
    const done = await r.cluster.runUntil(
      '4.16.5 completed',
      () => history0(r.cluster)?.state === 'Completed' && history0(r.cluster)?.version === '4.16.5' && r.cluster.cv(),
    );
    expect(done.status.history?.[0]).toMatchObject({ version: '4.16.5', image: image('4.16.5'), verified: true });
    expect(condition(done, 'Progressing')).toMatchObject({ status: 'False', message: 'Cluster version is 4.16.5' });
    const total = documentsOf('4.16.5');
    const lines = applied(r.operator);
    expect(lines.length).toBe(total);
    for (let i = 1; i < lines.length; i++) expect(lines[i]!.runlevel).toBeGreaterThanOrEqual(lines[i - 1]!.runlevel);
    expect(r.operator.lines.some((l) => l.msg.startsWith('the cluster-version-operator Deployment changed'))).toBe(
      true,
    );
    // The record of a finished update is gone.
    expect(r.cluster.get('ConfigMap', PROGRESS.namespace, PROGRESS.name)).toBeUndefined();
  });

  it('resumes after the agent is killed mid-update, without applying the finished runlevels again', async () => {
    const r = await rig();
    await r.ask({ to: '4.16.5' });
    await r.cluster.runUntil('three runlevels done', () => stagesDone(r.cluster) >= 3);
    await r.operator.kill();
    const atKill = stagesDone(r.cluster);
    const second = r.startOperator();
    await r.cluster.runUntil('the update completed', () => history0(r.cluster)?.state === 'Completed');
    const resumed = second.lines.find((l) => l.msg === 'resuming the update where it was');
    expect(resumed?.stagesDone).toBe(atKill);
    const finished = new Set(
      stagesOf('4.16.5')
        .slice(0, atKill)
        .flatMap((s) => s.tasks.flatMap((t) => t.manifests.map((m) => m.file))),
    );
    expect(applied(second).filter((l) => finished.has(l.file))).toEqual([]);
    expect(applied(second).length).toBeGreaterThan(0);
  });

  it('starts over, rather than taking the update for done, when its progress record is malformed', async () => {
    const r = await rig();
    await r.ask({ to: '4.16.5' });
    await r.cluster.runUntil('two runlevels done', () => stagesDone(r.cluster) >= 2);
    await r.operator.kill();
    r.cluster.state.patch(kindNamed('ConfigMap'), PROGRESS.namespace, PROGRESS.name, { data: { stagesDone: 'two' } });
    const second = r.startOperator();
    await r.cluster.runUntil('4.16.5 completed', () =>
      ((h) => h?.state === 'Completed' && h.version === '4.16.5')(history0(r.cluster)),
    );
    expect(second.lines.some((l) => l.msg === 'resuming the update where it was')).toBe(false);
    expect(applied(second).length).toBe(documentsOf('4.16.5'));
  });

  it('resumes where it was when reading its progress fails for a moment, instead of starting over', async () => {
    const r = await rig({ operators: { console: { behavior: 'degraded' } } });
    await r.ask({ to: '4.16.5' });
    await r.cluster.runUntil('the wait on console', () =>
      /waiting on .*console/.test(condition(r.cluster.cv(), 'Progressing')?.message ?? ''),
    );
    await r.operator.kill();
    const before = r.cluster.get('ConfigMap', PROGRESS.namespace, PROGRESS.name)!.data as Record<string, string>;
    // The new operator's first read of its progress meets a server error.
    r.cluster.fail({ method: 'GET', path: new RegExp(`/configmaps/${PROGRESS.name}$`), status: 500, times: 1 });
    const second = r.startOperator();
    // The failed read is reported as Failing at once, and replaced by the operator's own failure once the
    // wait on console passes 40 minutes.
    await r.cluster.runUntil('the failed read reported', () =>
      /^The update executor cannot go on: .*HTTP 500/.test(condition(r.cluster.cv(), 'Failing')?.message ?? ''),
    );
    await r.cluster.runUntil('Failing after 40 minutes', () =>
      /console/.test(condition(r.cluster.cv(), 'Failing')?.message ?? ''),
    );
    expect(second.lines.find((l) => l.msg === 'resuming the update where it was')?.stagesDone).toBe(
      Number(before.stagesDone),
    );
    expect(second.lines.find((l) => l.msg === 'update sync failed; will try again')).toBeDefined();
    const finished = new Set(
      stagesOf('4.16.5')
        .slice(0, Number(before.stagesDone))
        .flatMap((s) => s.tasks.flatMap((t) => t.manifests.map((m) => m.file))),
    );
    expect(applied(second).filter((l) => finished.has(l.file))).toEqual([]);
    // The 40 minutes count from when the wait began, before the restart.
    const after = r.cluster.get('ConfigMap', PROGRESS.namespace, PROGRESS.name)!.data as Record<string, string>;
    expect(after.waitingSince).toBe(before.waitingSince);
  });

  it('removes the record of a finished update at a later pass when removing it failed at completion, without reconciling early', async () => {
    const r = await rig();
    await r.ask({ to: '4.16.5' });
    const deletes = () =>
      r.cluster.requests.filter((q) => q.method === 'DELETE' && q.path.endsWith(`/configmaps/${PROGRESS.name}`));
    // Once the update is under way (the record exists), the next removal of the record fails: the one at completion.
    await r.cluster.runUntil('4.16.5 under way', () => stagesDone(r.cluster) >= 1);
    const before = deletes().length;
    r.cluster.fail({ method: 'DELETE', path: new RegExp(`/configmaps/${PROGRESS.name}$`), status: 500, times: 1 });
    await r.cluster.runUntil('4.16.5 completed', () =>
      ((h) => h?.state === 'Completed' && h.version === '4.16.5')(history0(r.cluster)),
    );
    await r.cluster.runUntil(
      'the progress record gone',
      () => !r.cluster.get('ConfigMap', PROGRESS.namespace, PROGRESS.name),
    );
    expect(deletes().length).toBe(before + 2); // the failed one at completion, then the one that worked
    const msgs = r.operator.lines.map((l) => l.msg);
    const completed = msgs.indexOf('update completed');
    expect(msgs.indexOf('the record of the finished update was not removed; will try again')).toBeGreaterThan(
      completed,
    );
    // Everything was just applied: the next reconcile pass is 30 minutes away, not at the retry.
    await r.cluster.runUntil(
      '10 more minutes',
      (
        (end) => () =>
          r.cluster.clock.now() >= end
      )(r.cluster.clock.now() + 10 * 60_000),
    );
    expect(r.operator.lines.map((l) => l.msg)).not.toContain('release reconciled');
  });

  it('refuses an unsigned release unless forced, and records the forced risk', async () => {
    const r = await rig();
    await r.ask({ to: '4.16.7' });
    const refused = await r.cluster.runUntil('the refusal', () =>
      ((c) => c?.status === 'False' && c)(condition(r.cluster.cv(), 'ReleaseAccepted')),
    );
    expect(refused.reason).toBe('RetrievePayload');
    expect(refused.message).toMatch(
      new RegExp(
        `^Retrieving payload failed version="4\\.16\\.7" image="${image('4.16.7').replace(/[.]/g, '\\.')}" failure=The update cannot be verified: unable to verify sha256:[0-9a-f]{64} against keyrings: ${KID}`,
      ),
    );
    expect(r.cluster.cv().status.history).toHaveLength(1);
    // The forced request is a new one: acted on at the executor's next look, not a minute after the refusal.
    const asked = r.cluster.clock.now();
    await r.ask({ to: '4.16.7', force: true });
    const entry = await r.cluster.runUntil('the forced update', () =>
      ((h) => h?.version === '4.16.7' && h)(history0(r.cluster)),
    );
    // (The executor looks again within TIMING.gatePoll, and the payload Job takes its time; a refusal
    // remembered past the new request would hold it for TIMING.retry first.)
    expect(Date.parse(entry.startedTime) - asked).toBeLessThan(TIMING.retry);
    expect(entry).toMatchObject({ state: 'Partial', verified: false, completionTime: null });
    expect(entry.acceptedRisks).toMatch(
      /^Target release version="4\.16\.7" image="\S+" cannot be verified, but continuing anyway because the update was forced: The update cannot be verified/,
    );
  });

  it('after --clear, ReleaseAccepted is about the current release again, as syncPayload resets it', async () => {
    const r = await rig();
    await r.ask({ to: '4.16.7' });
    await r.cluster.runUntil('the refusal', () => condition(r.cluster.cv(), 'ReleaseAccepted')?.status === 'False');
    expect(await clearUpdate(r.cluster.client())).toBe('Cancelled requested upgrade to 4.16.7');
    const accepted = await r.cluster.runUntil('the reset', () =>
      ((c) => c?.status === 'True' && c)(condition(r.cluster.cv(), 'ReleaseAccepted')),
    );
    expect(accepted).toMatchObject({
      reason: 'PayloadLoaded',
      message: `Payload loaded version="4.15.9" image="${image('4.15.9')}" architecture="amd64"`,
    });
    expect(JSON.stringify(r.cluster.cv().status.conditions)).not.toContain('4.16.7');
    expect(r.cluster.cv().status.history).toHaveLength(1);
  });

  it('checks each precondition, and force takes the update through blocking failures', async () => {
    const r = await rig();
    const refusal = (version: string, precondition: string): Promise<string> =>
      r.cluster
        .runUntil(`the ${precondition} refusal`, () => {
          const c = condition(r.cluster.cv(), 'ReleaseAccepted');
          return (
            c?.status === 'False' &&
            c.message.includes(`version="${version}"`) &&
            c.message.includes(`"${precondition}"`) &&
            c
          );
        })
        .then((c) => c.message);
    await r.ask({ toImage: image('4.15.8'), allowExplicitUpgrade: true });
    expect(await refusal('4.15.8', 'ClusterVersionRollback')).toBe(
      `Preconditions failed for payload loaded version="4.15.8" image="${image('4.15.8')}": Precondition "ClusterVersionRollback" failed because of "Downgrade": the update from 4.15.9 to 4.15.8 is a rollback, which is not supported`,
    );
    await r.ask({ to: '4.17.1' });
    expect(await refusal('4.17.1', 'MinorVersionHop')).toContain(
      'Precondition "MinorVersionHop" failed because of "MinorVersionHop": the update from 4.15.9 to 4.17.1 skips a minor version; update to 4.16 first',
    );
    const etcd = r.cluster.get('ClusterOperator', undefined, 'etcd')!;
    const conditions = (etcd.status as { conditions: Array<{ type: string }> }).conditions.map((c) =>
      c.type === 'Upgradeable'
        ? { ...c, status: 'False', reason: 'AdminAckRequired', message: 'Acknowledge the API removals first.' }
        : c,
    );
    r.cluster.state.patch(kindNamed('ClusterOperator'), undefined, 'etcd', { status: { conditions } }, 'status');
    await r.ask({ to: '4.16.5' });
    expect(await refusal('4.16.5', 'ClusterVersionUpgradeable')).toBe(
      `Preconditions failed for payload loaded version="4.16.5" image="${image('4.16.5')}": Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired": Cluster operator etcd should not be upgraded between minor versions: Acknowledge the API removals first.`,
    );
    expect(condition(r.cluster.cv(), 'Upgradeable')).toMatchObject({ status: 'False', reason: 'AdminAckRequired' });
    // A version nobody recommends is invalid, not attempted.
    r.cluster.state.patch(kindNamed('ClusterVersion'), undefined, 'version', {
      spec: { desiredUpdate: { version: '4.16.99', image: null, force: false } },
    });
    const invalid = await r.cluster.runUntil('Invalid', () => condition(r.cluster.cv(), 'Invalid'));
    expect(invalid).toMatchObject({
      status: 'True',
      reason: 'InvalidClusterVersion',
      message:
        'The cluster version is invalid: spec.desiredUpdate.version: Invalid value: "4.16.99": when image is empty the update must be a previous version or an available update',
    });
    // The Invalid condition is a client-side guard oc asks to be passed explicitly.
    await r.ask({ to: '4.16.6', allowNotRecommended: true, force: true, allowUpgradeWithWarnings: true });
    const entry = await r.cluster.runUntil('the forced update', () =>
      ((h) => h?.version === '4.16.6' && h)(history0(r.cluster)),
    );
    expect(entry.verified).toBe(true);
    expect(entry.acceptedRisks).toContain(
      'Forced through blocking failures: Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired"',
    );
    expect(condition(r.cluster.cv(), 'Invalid')).toBeUndefined();
  });

  it('with the accept-risks feature on, takes a conditional update only once its risks are accepted, and records that', async () => {
    // The Tech Preview feature set: the FeatureGate turns ClusterUpdateAcceptRisks on, the CRD has its fields.
    const r = await rig(undefined, 'TechPreviewNoUpgrade');
    await r.poll();
    const risks = r.cluster.cv().status.conditionalUpdateRisks;
    expect(risks?.map((k) => [k.name, k.conditions[0]?.type, k.conditions[0]?.status])).toEqual([
      ['Everywhere', 'Applies', 'True'],
    ]);
    expect(r.cluster.cv().status.conditionalUpdates?.find((c) => c.release.version === '4.16.6')?.riskNames).toEqual([
      'Everywhere',
    ]);
    // A minor update: the Tech Preview feature set makes it not Upgradeable, so the request is forced, but force
    // does not pass unaccepted risks.
    await r.ask({ to: '4.16.6', allowNotRecommended: true, force: true, allowUpgradeWithWarnings: true });
    const blocked = await r.cluster.runUntil('the refusal', () =>
      ((c) => c?.status === 'False' && c)(condition(r.cluster.cv(), 'ReleaseAccepted')),
    );
    expect(blocked).toMatchObject({
      reason: 'UnacceptedRisks',
      message: `Payload loaded version="4.16.6" image="${image('4.16.6')}" is blocked because it is exposed to unaccepted risks [Everywhere]`,
    });
    // Accepting the risk is a new request: the update goes ahead and its history says why.
    r.cluster.state.patch(kindNamed('ClusterVersion'), undefined, 'version', {
      spec: { desiredUpdate: { acceptRisks: [{ name: 'Everywhere' }] } },
    });
    await r.poll();
    expect(
      r.cluster.cv().status.conditionalUpdates?.find((c) => c.release.version === '4.16.6')?.conditions[0],
    ).toMatchObject({ status: 'True', reason: 'AllExposedRisksAccepted' });
    const entry = await r.cluster.runUntil('the accepted update', () =>
      ((h) => h?.version === '4.16.6' && h)(history0(r.cluster)),
    );
    expect(entry.acceptedRisks).toContain(
      `The target release version="4.16.6" image="${image('4.16.6')}" is exposed to the risks [Everywhere] and accepted by CVO because all of them are considered acceptable`,
    );
    expect(entry.acceptedRisks).toContain('FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade');
  });

  it('holds a minor update back for an unacknowledged admin gate of the current version, as the CVO does', async () => {
    const r = await rig();
    const cm = kindNamed('ConfigMap');
    const gate = 'ack-4.15-kube-1.29-api-removals-in-4.16';
    const why = 'Kubernetes 1.29 and therefore OpenShift 4.16 remove several APIs which require admin consideration.';
    r.cluster.state.patch(cm, 'openshift-config-managed', 'admin-gates', {
      data: { [gate]: why, 'ack-4.14-kube-1.28-api-removals-in-4.15': 'An older gate, not of this version.' },
    });
    const held = await r.cluster.runUntil('Upgradeable=False', () =>
      ((c) => c?.status === 'False' && c)(condition(r.cluster.cv(), 'Upgradeable')),
    );
    expect(held).toMatchObject({ reason: 'AdminAckRequired', message: why });
    await r.ask({ to: '4.16.5' });
    const refused = await r.cluster.runUntil('the refusal', () =>
      ((c) => c?.status === 'False' && c.message.includes('"ClusterVersionUpgradeable"') && c)(
        condition(r.cluster.cv(), 'ReleaseAccepted'),
      ),
    );
    expect(refused.message).toContain(`failed because of "AdminAckRequired": ${why}`);
    // The administrator acknowledges: the update goes ahead.
    r.cluster.state.patch(cm, 'openshift-config', 'admin-acks', { data: { [gate]: 'true' } });
    const entry = await r.cluster.runUntil('the acknowledged update', () =>
      ((h) => h?.version === '4.16.5' && h)(history0(r.cluster)),
    );
    expect(entry.acceptedRisks ?? '').not.toContain('AdminAckRequired');
    expect(condition(r.cluster.cv(), 'Upgradeable')).toMatchObject({ status: 'True' });
  });

  it('refuses a payload it cannot retrieve, cannot load, or that is another version, even forced', async () => {
    const r = await rig();
    const refused = (version: string) =>
      r.cluster.runUntil(`the refusal of ${version}`, () =>
        ((c) => c?.status === 'False' && c.message.includes(`version="${version}"`) && c)(
          condition(r.cluster.cv(), 'ReleaseAccepted'),
        ),
      );
    await r.ask({ to: '4.16.9', force: true });
    expect(await refused('4.16.9')).toMatchObject({
      reason: 'RetrievePayload',
      message: expect.stringMatching(
        /^Retrieving payload failed version="4\.16\.9" image="\S+" failure=Unable to download and prepare the update: BackoffLimitExceeded: .*quay\.example\/ocp\/release@sha256:[0-9a-f]{64}/,
      ),
    });
    await r.ask({ to: '4.16.10', force: true });
    expect(await refused('4.16.10')).toMatchObject({
      reason: 'LoadPayload',
      message: expect.stringContaining('failure=0000_50_console_06_deployment.yaml: '),
    });
    await r.ask({ to: '4.16.8', force: true });
    expect(await refused('4.16.8')).toMatchObject({
      reason: 'VerifyPayloadVersion',
      message: `Verifying payload failed version="4.16.8" image="${image('4.16.8')}" failure=release image version 4.16.4 does not match the expected upstream version 4.16.8`,
    });
    expect(r.cluster.cv().status.history).toHaveLength(1);
    const jobs = r.cluster.state.list(kindNamed('Job'), 'openshift-cluster-version').map((j) => j.metadata.name);
    expect(jobs.sort()).toEqual([
      expect.stringMatching(/^version-4\.16\.10-/),
      expect.stringMatching(/^version-4\.16\.8-/),
      expect.stringMatching(/^version-4\.16\.9-/),
    ]);
  });

  it('reports a degraded operator as Failing after 40 minutes of waiting on it, until a new request supersedes the update', async () => {
    const r = await rig({ operators: { console: { behavior: 'degraded' } } });
    await r.ask({ to: '4.16.5' });
    await r.cluster.runUntil('the wait on console', () =>
      /waiting on .*console/.test(condition(r.cluster.cv(), 'Progressing')?.message ?? ''),
    );
    const since = (r.cluster.get('ConfigMap', PROGRESS.namespace, PROGRESS.name)!.data as Record<string, string>)
      .waitingSince;
    // A restart during the wait keeps counting from when it began.
    await r.operator.kill();
    r.startOperator();
    const failing = await r.cluster.runUntil('Failing', () =>
      ((c) => c?.status === 'True' && c)(condition(r.cluster.cv(), 'Failing')),
    );
    expect(failing).toMatchObject({
      reason: 'ClusterOperatorDegraded',
      message: 'Cluster operator console is degraded',
    });
    const cv = r.cluster.cv();
    expect(condition(cv, 'Progressing')).toMatchObject({
      status: 'True',
      message: 'Unable to apply 4.16.5: wait has exceeded 40 minutes for these operators: console',
    });
    expect(cv.status.history?.[0]).toMatchObject({ version: '4.16.5', state: 'Partial' });
    const waited = Date.parse(failing.lastTransitionTime) - Number(since);
    expect(waited).toBeGreaterThanOrEqual(40 * 60_000 - 1000);
    expect(waited).toBeLessThan(45 * 60_000);

    // A new request supersedes the stuck update: a new entry, the old one ended but never Completed.
    await r.poll(); // the updates from 4.16.5, the release now desired
    expect(r.cluster.cv().status.conditionalUpdates?.some((c) => c.release.version === '4.16.6')).toBe(true);
    await r.ask({ to: '4.16.6', allowNotRecommended: true, allowUpgradeWithWarnings: true });
    const history = await r.cluster.runUntil('the superseding update', () =>
      ((h) => h?.[0]?.version === '4.16.6' && h)(r.cluster.cv().status.history),
    );
    expect(history[0]).toMatchObject({ state: 'Partial', completionTime: null });
    expect(history[1]).toMatchObject({ version: '4.16.5', state: 'Partial', completionTime: expect.any(String) });
    expect(history[2]).toMatchObject({ version: '4.15.9', state: 'Completed' });
  });
});
