// The OADP operator as the mock simulates it: a Backup runs (InProgress) and completes after a while; a
// Restore waits for its backup, then runs and completes the same way, or fails validation when its backup
// does not exist or did not complete. The annotation cincy.mock/oadp-outcome: Failed on either makes it fail,
// to test what the Lifecycle Agent does then. Nothing runs until the velero.io CRDs are installed.
import { kubeTime } from 'cincy/clock';
import { annotation, clone, save } from './controller.js';
import { crdName, kindNamed, type StoredObject } from '../apiserver/kinds.js';
import type { ClusterState } from '../apiserver/state.js';

/** How long a Backup or a Restore runs (simulated). */
export const OADP_RUN_MS = 90_000;
export const OADP_OUTCOME = 'cincy.mock/oadp-outcome';

interface Progress {
  phase?: string;
  startTimestamp?: string;
  completionTimestamp?: string;
  validationErrors?: string[];
  errors?: number;
}

export function reconcileOadp(state: ClusterState, now: number): void {
  const backups = kindNamed('Backup');
  const restores = kindNamed('Restore');
  if (!state.has(kindNamed('CustomResourceDefinition'), undefined, crdName(backups))) return;
  for (const b of state.list(backups)) advance(state, b, now, undefined);
  for (const r of state.list(restores)) {
    const name = (r.spec as { backupName?: string } | undefined)?.backupName ?? '';
    const backup = name ? state.find(backups, r.metadata.namespace, name) : undefined;
    const phase = (backup?.status as Progress | undefined)?.phase;
    const invalid = !name
      ? 'No backup name was given'
      : !backup
        ? `Error retrieving backup: backups.velero.io "${name}" not found`
        : phase === 'Failed' || phase === 'PartiallyFailed' || phase === 'FailedValidation'
          ? `backup "${name}" is in phase ${phase}: only a completed backup can be restored`
          : undefined;
    advance(state, r, now, invalid, phase !== undefined && phase !== 'Completed' && !invalid);
  }
}

/** Moves a Backup or Restore on: New → InProgress → Completed (or Failed); FailedValidation when `invalid`. */
function advance(
  state: ClusterState,
  o: StoredObject,
  now: number,
  invalid: string | undefined,
  waiting = false,
): void {
  const s = (o.status ?? {}) as Progress;
  if (s.phase && s.phase !== 'New' && s.phase !== 'InProgress') return; // done, one way or the other
  const next = clone(o);
  const out = (next.status ??= {}) as Progress;
  if (!s.phase || s.phase === 'New') {
    if (invalid) Object.assign(out, { phase: 'FailedValidation', validationErrors: [invalid] });
    else if (waiting) out.phase = 'New';
    else Object.assign(out, { phase: 'InProgress', startTimestamp: kubeTime(now) });
  } else if (now >= Date.parse(s.startTimestamp ?? kubeTime(now)) + OADP_RUN_MS) {
    const failed = annotation(o, OADP_OUTCOME) === 'Failed';
    Object.assign(out, {
      phase: failed ? 'Failed' : 'Completed',
      completionTimestamp: kubeTime(now),
      ...(failed && { errors: 1 }),
    });
  }
  save(state, kindNamed(o.kind), o, next);
}
