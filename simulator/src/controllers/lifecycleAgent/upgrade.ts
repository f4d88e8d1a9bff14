// The Upgrade stage. Before the pivot (the node on the old stateroot): waits for a healthy cluster, runs the
// OADP backups of spec.oadpContent, exports the restores, the extra manifests and the cluster's configuration
// into the new stateroot, arms the init monitor, makes the new stateroot the default boot entry and reboots.
// After the pivot (the node up on the seed's release): waits for a healthy cluster, applies the extra
// manifests, runs the restores, disarms the init monitor: Upgrade completed. A failure after the pivot rolls
// back on its own unless auto-rollback-on-failure.lca.openshift.io/upgrade-completion is Disabled; the init
// monitor rolls back when the upgrade has not completed in time, unless …/init-monitor is Disabled.
import { kubeTime } from 'cincy/clock';
import { stringify } from 'yaml';
import { parseAllDocuments } from 'yaml';
import type { OadpObject } from './cluster.js';
import {
  afterPivot,
  desiredStateroot,
  recordReboot,
  setCompleted,
  setFailed,
  setInProgress,
  waitForHealth,
  WAIT,
  type StageContext,
  type StageResult,
} from './context.js';
import { MSG, startPhase, startRun, stopPhase, type ImageBasedUpgrade } from './status.js';

export const AUTO_ROLLBACK_UPGRADE_COMPLETION = 'auto-rollback-on-failure.lca.openshift.io/upgrade-completion';
/** Disabled: no init monitor after the pivot (no rollback when the upgrade does not complete in time). */
export const AUTO_ROLLBACK_INIT_MONITOR = 'auto-rollback-on-failure.lca.openshift.io/init-monitor';
export const DEFAULT_INIT_MONITOR_SECONDS = 1800;
/** How long after the pivot a rollback is safe without recovering expired control-plane certificates. */
const ROLLBACK_AVAILABILITY_MS = 30 * 86_400_000;

export async function handleUpgrade(c: StageContext): Promise<StageResult> {
  const run = startRun(c.ibu, 'Upgrade', c.now);
  if (c.host.reboot) return WAIT.short; // the node is going down or booting: nothing runs meanwhile
  if (afterPivot(c.ibu, c.host)) return postPivot(c, run);
  if (c.host.rollbackMessage || run.phases?.some((p) => p.phase === 'PostPivot')) {
    // Back on the old stateroot without having been asked: the init monitor or a failure rolled back.
    setFailed(c, 'Upgrade', MSG.upgradeFailed, c.host.rollbackMessage ?? 'Uncontrolled rollback');
    return undefined;
  }
  return prePivot(c, run);
}

async function prePivot(c: StageContext, run: ReturnType<typeof startRun>): Promise<StageResult> {
  startPhase(run, 'PrePivot', c.now);
  const health = await waitForHealth(c, (p) =>
    setInProgress(c, 'Upgrade', `Waiting for system to stabilize before Upgrade (pre-pivot) stage can continue: ${p}`),
  );
  if (health !== 'healthy') return health;
  setInProgress(c, 'Upgrade', 'Backing up Application Data');
  const oadp = await oadpManifests(c.ibu, c);
  const backups = oadp.filter((o) => o.kind === 'Backup');
  const states = [];
  for (const b of backups) {
    const ns = b.metadata.namespace ?? 'openshift-adp';
    const found = await c.cluster.oadp('Backup', ns, b.metadata.name);
    if (!found) await c.cluster.createOadp({ ...b, metadata: { ...b.metadata, namespace: ns } });
    states.push({ name: b.metadata.name, phase: found?.status?.phase });
  }
  const failed = states.filter((s) => ['Failed', 'PartiallyFailed', 'FailedValidation'].includes(s.phase ?? ''));
  if (failed.length) {
    setFailed(c, 'Upgrade', MSG.upgradeFailed, `Failed backup CRs: ${failed.map((s) => s.name).join(',')}`);
    return undefined;
  }
  if (states.some((s) => s.phase !== 'Completed')) {
    setInProgress(c, 'Upgrade', 'Backup of Application Data is in progress');
    return WAIT.short;
  }
  const target = desiredStateroot(c.ibu)!;
  const stateroot = c.host.stateroots.find((s) => s.name === target);
  if (!stateroot) {
    setFailed(c, 'Upgrade', MSG.upgradeFailed, `stateroot ${target} not found: run Prep again`);
    return undefined;
  }
  setInProgress(c, 'Upgrade', 'Exporting Application Configuration');
  stateroot.restores = oadp.filter((o) => o.kind === 'Restore').map((o) => stringify(o));
  setInProgress(c, 'Upgrade', 'Exporting Policy and Config Manifests');
  const extra = [];
  for (const [i, ref] of (c.ibu.spec?.extraManifests ?? []).entries())
    extra.push(...(await c.cluster.manifests(ref, `spec.extraManifests[${i}]`)));
  stateroot.extraManifests = extra.map((o) => stringify(o));
  setInProgress(c, 'Upgrade', 'Exporting Cluster and LVM configuration');
  const cv = await c.cluster.clusterVersion();
  stateroot.clusterConfig = { clusterID: cv.clusterID ?? '', node: c.host.node, fromVersion: cv.version };
  stopPhase(run, 'PrePivot', c.now);
  const timeout = c.ibu.spec?.autoRollbackOnFailure?.initMonitorTimeoutSeconds || DEFAULT_INIT_MONITOR_SECONDS;
  const monitored = c.ibu.metadata.annotations?.[AUTO_ROLLBACK_INIT_MONITOR] !== 'Disabled';
  c.host.initMonitor = { enabled: monitored, stateroot: target, timeoutSeconds: timeout, rollbackTo: c.host.booted };
  c.host.defaultDeployment = target;
  c.host.reboot = { requestedAt: kubeTime(c.now), reason: 'upgrade' };
  delete c.host.rollbackMessage;
  setInProgress(c, 'Upgrade', MSG.inProgress);
  await c.saveHost();
  await recordReboot(c, 'System will now reboot for upgrade');
  return WAIT.short;
}

async function postPivot(c: StageContext, run: ReturnType<typeof startRun>): Promise<StageResult> {
  stopPhase(run, 'PrePivot', c.now);
  startPhase(run, 'PostPivot', c.now);
  const s = (c.ibu.status ??= {});
  s.rollbackAvailabilityExpiration ??= kubeTime(
    Date.parse(c.host.lastBoot?.at ?? kubeTime(c.now)) + ROLLBACK_AVAILABILITY_MS,
  );
  const health = await waitForHealth(c, (p) => setInProgress(c, 'Upgrade', `Waiting for system to stabilize: ${p}`));
  if (health !== 'healthy') return health;
  const stateroot = c.host.stateroots.find((x) => x.name === c.host.booted)!;
  setInProgress(c, 'Upgrade', 'Applying Config Manifests');
  for (const text of stateroot.extraManifests ?? []) {
    const o = parseAllDocuments(text)[0]!.toJS() as OadpObject;
    try {
      await c.cluster.apply(o);
    } catch (err) {
      return failAndRollBack(c, (err as Error).message, 'Rollback due to failure applying config manifests');
    }
  }
  setInProgress(c, 'Upgrade', 'Restoring Application Data');
  const states = [];
  for (const text of stateroot.restores ?? []) {
    const r = parseAllDocuments(text)[0]!.toJS() as OadpObject;
    const ns = r.metadata.namespace ?? 'openshift-adp';
    const found = await c.cluster.oadp('Restore', ns, r.metadata.name);
    if (!found) await c.cluster.createOadp({ ...r, metadata: { ...r.metadata, namespace: ns } });
    states.push({ name: r.metadata.name, phase: found?.status?.phase });
  }
  const failed = states.filter((x) => ['Failed', 'PartiallyFailed', 'FailedValidation'].includes(x.phase ?? ''));
  if (failed.length)
    return failAndRollBack(
      c,
      `Failed restore CRs: ${failed.map((x) => x.name).join(',')}`,
      'Rollback due to restore failure',
    );
  if (states.some((x) => x.phase !== 'Completed')) {
    setInProgress(c, 'Upgrade', 'Restore of Application Data is in progress');
    return WAIT.short;
  }
  if (c.host.initMonitor?.enabled) {
    c.host.initMonitor = { ...c.host.initMonitor, enabled: false };
    await c.saveHost();
  }
  stopPhase(run, 'PostPivot', c.now);
  run.completionTime ??= kubeTime(c.now);
  setCompleted(c, 'Upgrade', MSG.upgradeCompleted, MSG.upgradeCompleted);
  return undefined;
}

/** The upgrade failed after the pivot: said in the conditions, then back to the old stateroot unless disabled. */
async function failAndRollBack(c: StageContext, why: string, rollbackWhy: string): Promise<StageResult> {
  setFailed(c, 'Upgrade', MSG.upgradeFailed, why);
  if (c.ibu.metadata.annotations?.[AUTO_ROLLBACK_UPGRADE_COMPLETION] === 'Disabled') {
    c.log.info('Auto-rollback upgrade completion is disabled');
    return undefined;
  }
  const to = c.host.initMonitor?.rollbackTo ?? c.host.stateroots.find((x) => x.name !== c.host.booted)?.name;
  if (!to) return undefined;
  c.host.rollbackMessage = `${rollbackWhy}: ${why}`;
  c.host.initMonitor = c.host.initMonitor && { ...c.host.initMonitor, enabled: false };
  c.host.defaultDeployment = to;
  c.host.reboot = { requestedAt: kubeTime(c.now), reason: 'automatic rollback' };
  await c.saveHost();
  c.log.warn({ to, why }, 'Automatically rolling back due to failure');
  return undefined;
}

/** The Backup and Restore manifests of spec.oadpContent. */
async function oadpManifests(ibu: ImageBasedUpgrade, c: StageContext): Promise<OadpObject[]> {
  const out: OadpObject[] = [];
  for (const [i, ref] of (ibu.spec?.oadpContent ?? []).entries())
    out.push(...(await c.cluster.manifests(ref, `spec.oadpContent[${i}]`)));
  return out;
}
