// The Rollback stage (asked for after the pivot): makes the old stateroot the default boot entry and reboots
// into it; once the node is up on it and the cluster is healthy, Rollback completed. The cluster then reports
// the old release again, as the old stateroot's etcd holds it.
import { kubeTime } from 'cincy/clock';
import {
  afterPivot,
  recordReboot,
  setCompleted,
  setInProgress,
  waitForHealth,
  WAIT,
  type StageContext,
  type StageResult,
} from './context.js';
import { MSG, startPhase, startRun, stopPhase } from './status.js';

export async function handleRollback(c: StageContext): Promise<StageResult> {
  const run = startRun(c.ibu, 'Rollback', c.now);
  if (c.host.reboot) return WAIT.short;
  if (afterPivot(c.ibu, c.host)) {
    const to = c.host.initMonitor?.rollbackTo ?? c.host.stateroots.find((s) => s.name !== c.host.booted)?.name;
    if (!to) {
      setInProgress(c, 'Rollback', 'No stateroot to roll back to');
      return WAIT.medium;
    }
    startPhase(run, 'Rollback', c.now);
    c.host.initMonitor = c.host.initMonitor && { ...c.host.initMonitor, enabled: false };
    c.host.defaultDeployment = to;
    c.host.reboot = { requestedAt: kubeTime(c.now), reason: 'rollback' };
    setInProgress(c, 'Rollback', MSG.inProgress);
    await c.saveHost();
    await recordReboot(c, 'System will now reboot for rollback');
    return WAIT.short;
  }
  const health = await waitForHealth(c, (p) => setInProgress(c, 'Rollback', `Waiting for system to stabilize: ${p}`));
  if (health !== 'healthy') return health;
  stopPhase(run, 'Rollback', c.now);
  run.completionTime ??= kubeTime(c.now);
  setCompleted(c, 'Rollback', MSG.rollbackCompleted, MSG.rollbackCompleted);
  return undefined;
}
