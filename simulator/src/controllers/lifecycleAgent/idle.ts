// Moving to Idle: finalizing (after a completed upgrade or rollback, once the cluster is healthy) or aborting
// (Prep, or Upgrade before the pivot). Both clean up: the stateroots not booted (the new one after an abort or
// a rollback, the old one after an upgrade), the images Prep pulled for a removed stateroot, the OADP Backups
// and Restores of spec.oadpContent, the init monitor and what the host kept of the upgrade. A clean-up that
// fails leaves AbortFailed or FinalizeFailed with what failed, until the lca.openshift.io/manual-cleanup-done
// annotation says it was done by hand.
import { apiMessage } from 'cincy/cluster/apiError';
import { ManifestError } from './cluster.js';
import { waitForHealth, WAIT, type StageContext, type StageResult } from './context.js';
import { ibuCondition, resetConditions, setIbuCondition } from './status.js';

export const MANUAL_CLEANUP_ANNOTATION = 'lca.openshift.io/manual-cleanup-done';

export async function handleIdle(c: StageContext): Promise<StageResult> {
  const reason = ibuCondition(c.ibu, 'Idle')?.reason;
  if (reason === 'AbortFailed' || reason === 'FinalizeFailed') {
    if (c.ibu.metadata.annotations?.[MANUAL_CLEANUP_ANNOTATION] === undefined) return WAIT.medium;
    delete c.ibu.metadata.annotations[MANUAL_CLEANUP_ANNOTATION];
    const written = await c.cluster.writeIbu(c.ibu);
    c.ibu.metadata.resourceVersion = written.metadata.resourceVersion;
  }
  const finalizing = reason === 'Finalizing' || reason === 'FinalizeFailed';
  if (finalizing) {
    const health = await waitForHealth(c, (p) =>
      setIbuCondition(
        c.ibu,
        'Idle',
        'Finalizing',
        'False',
        `Waiting for system to stabilize before finalize (idle) stage can continue: ${p}`,
        c.now,
      ),
    );
    if (health !== 'healthy') return health;
  }
  const errors = await cleanUp(c);
  if (errors.length) {
    setIbuCondition(
      c.ibu,
      'Idle',
      finalizing ? 'FinalizeFailed' : 'AbortFailed',
      'False',
      `${errors.join(' ')} Perform cleanup manually then add '${MANUAL_CLEANUP_ANNOTATION}' annotation to ibu CR to transition back to Idle`,
      c.now,
    );
    return WAIT.medium;
  }
  resetConditions(c.ibu, c.now);
  const s = c.ibu.status!;
  s.history = [];
  delete s.rollbackAvailabilityExpiration;
  return undefined;
}

/** Removes what the upgrade left; the errors met, each a sentence (the rest is cleaned up all the same). */
async function cleanUp(c: StageContext): Promise<string[]> {
  const errors: string[] = [];
  const host = c.host;
  const removed = host.stateroots.filter((s) => s.name !== host.booted).map((s) => s.name);
  host.stateroots = host.stateroots.filter((s) => s.name === host.booted);
  host.defaultDeployment = host.booted;
  host.containerStorage.images = host.containerStorage.images.filter(
    (i) => i.stateroot === undefined || !removed.includes(i.stateroot),
  );
  // What stays was pulled for the stateroot that runs: its images are now the cluster's own.
  for (const i of host.containerStorage.images)
    if (i.stateroot !== undefined) Object.assign(i, { stateroot: undefined, inUse: true });
  delete host.initMonitor;
  delete host.rollbackMessage;
  delete host.seedPull;
  await c.saveHost();
  for (const [i, ref] of (c.ibu.spec?.oadpContent ?? []).entries()) {
    try {
      for (const o of await c.cluster.manifests(ref, `spec.oadpContent[${i}]`))
        if (o.kind === 'Backup' || o.kind === 'Restore')
          await c.cluster.deleteOadp(o.kind, o.metadata.namespace ?? 'openshift-adp', o.metadata.name);
    } catch (err) {
      // Nothing was backed up or restored from a ConfigMap that is not there (Prep refused it).
      if (err instanceof ManifestError && err.missing) continue;
      errors.push(`failed to cleanup OADP resources: ${apiMessage(err)}.`);
    }
  }
  return errors;
}
