// The ClusterVersion conditions the update executor owns while it works: Progressing and Failing, each
// keeping its lastTransitionTime while its status holds.
import { setCondition, type ClusterVersionStatus } from '../clusterVersion.js';

export interface ConditionState {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export const NOT_FAILING: ConditionState = { status: 'False', reason: '', message: '' };

/** Status with Progressing and (when given) Failing set. */
export function withProgress(
  s: ClusterVersionStatus,
  at: string,
  progressing: ConditionState,
  failing?: ConditionState,
): ClusterVersionStatus {
  let conditions = setCondition(s.conditions, { type: 'Progressing', lastTransitionTime: at, ...progressing });
  if (failing) conditions = setCondition(conditions, { type: 'Failing', lastTransitionTime: at, ...failing });
  return { ...s, conditions };
}
