// What the mock cluster's simulated controllers share: conditions whose lastTransitionTime moves only
// when their status flips, annotation access, and saving an object only when it changed (every write is
// a new resourceVersion and a watch event, so a controller that rewrote the same thing would flood watchers).
import { canonicalJson } from 'cincy/canonicalJson';
import { kubeTime } from 'cincy/clock';
import type { StoredObject, ResourceKind } from '../apiserver/kinds.js';
import type { ClusterState } from '../apiserver/state.js';

export interface ObjectCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
  [key: string]: unknown;
}

export const conditionsOf = (o: StoredObject): ObjectCondition[] =>
  (o.status as { conditions?: ObjectCondition[] } | undefined)?.conditions ?? [];
export const objectCondition = (o: StoredObject, type: string): ObjectCondition | undefined =>
  conditionsOf(o).find((c) => c.type === type);

/** Sets a condition of `o.status.conditions`; lastTransitionTime becomes `at` only when the status flips. */
export function setObjectCondition(
  o: StoredObject,
  type: string,
  status: 'True' | 'False',
  reason: string,
  message: string,
  at: number,
): void {
  const s = (o.status ??= {}) as { conditions?: ObjectCondition[] };
  const list = (s.conditions ??= []);
  const old = list.find((c) => c.type === type);
  const next: ObjectCondition = {
    type,
    status,
    lastTransitionTime: old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : kubeTime(at),
    reason,
    message,
  };
  if (old) list.splice(list.indexOf(old), 1, { ...old, ...next });
  else list.push(next);
}

export const annotation = (o: StoredObject, key: string): string | undefined => o.metadata.annotations?.[key];

/** Sets (or with undefined removes) an annotation. */
export function setAnnotation(o: StoredObject, key: string, value: string | undefined): void {
  const a = (o.metadata.annotations ??= {});
  if (value === undefined) delete a[key];
  else a[key] = value;
}

/** A time kept in an annotation: ISO with milliseconds, so deadlines survive a restart exactly. */
export const isoMs = (ms: number): string => new Date(ms).toISOString();
export const timeAnnotation = (o: StoredObject, key: string): number | undefined => {
  const v = annotation(o, key);
  const t = v === undefined ? NaN : Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
};

/**
 * Writes `after` over `before` (the object as read): the object without its status through an update,
 * the status through the status subresource, each only when it differs. Returns whether anything was written.
 */
export function save(state: ClusterState, kind: ResourceKind, before: StoredObject, after: StoredObject): boolean {
  const main = (o: StoredObject): string => canonicalJson({ ...o, status: undefined });
  let wrote = false;
  let stored = before;
  if (main(after) !== main(before)) {
    stored = state.update(kind, after.metadata.namespace, after.metadata.name, {
      ...after,
      metadata: { ...after.metadata, resourceVersion: before.metadata.resourceVersion },
    });
    wrote = true;
  }
  if (canonicalJson(after.status ?? null) !== canonicalJson(before.status ?? null)) {
    state.update(kind, after.metadata.namespace, after.metadata.name, { ...stored, status: after.status }, 'status');
    wrote = true;
  }
  return wrote;
}

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
