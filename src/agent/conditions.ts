// Conditions as Kubernetes objects carry them (metav1.Condition's fields): a list keyed by type, whose
// lastTransitionTime moves only when the status flips.

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** Keeps the previous lastTransitionTime when the status did not change. */
export function keepTransition(next: Condition, previous: Condition | undefined): Condition {
  return previous && previous.status === next.status
    ? { ...next, lastTransitionTime: previous.lastTransitionTime }
    : next;
}

/** Sets a condition, keeping lastTransitionTime while its status holds. */
export function setCondition(conditions: Condition[] | undefined, next: Condition): Condition[] {
  const list = conditions ?? [];
  const previous = list.find((c) => c.type === next.type);
  const kept = keepTransition(next, previous);
  return previous ? list.map((c) => (c.type === next.type ? kept : c)) : [...list, kept];
}

export function removeCondition(conditions: Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
