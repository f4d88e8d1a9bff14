// What the agent writes into ClusterVersion status: the Recommended condition of each conditional
// update (reasons, messages, precedence, accepted risks), availableUpdates, conditionalUpdates and the
// RetrievedUpdates condition, with lastTransitionTime kept while a condition's status holds.
import semver from 'semver';
import type { Risk } from '../graph/model.js';
import type { ConditionalUpdate } from './cincinnati.js';
import type { ClusterRelease } from './clusterVersion.js';
import type { Condition } from './conditions.js';
import type { Exposure } from './risks.js';

export const NOT_EXPOSED =
  'The update is recommended, because none of the conditional update risks apply to this cluster.';
const REASON_NAME = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** The Recommended condition for the evaluated risks of one update. */
export function recommended(
  risks: Array<{ risk: Risk; exposure: Exposure }>,
  accepted: ReadonlySet<string>,
  at: string,
): Condition {
  const parts: Array<{ status: 'False' | 'Unknown'; reason: string; message: string }> = [];
  let acceptedApply = false;
  for (const { risk, exposure } of risks) {
    if ('unknown' in exposure) {
      parts.push({
        status: 'Unknown',
        reason: 'EvaluationFailed',
        message: `Could not evaluate exposure to update risk ${risk.name} (${exposure.unknown})\n  ${risk.name} description: ${risk.message}\n  ${risk.name} URL: ${risk.url}`,
      });
    } else if (exposure.applies) {
      if (accepted.has(risk.name)) acceptedApply = true;
      else
        parts.push({
          status: 'False',
          reason: REASON_NAME.test(risk.name) ? risk.name : 'ExposedToRisks',
          message: `${risk.message} ${risk.url}`,
        });
    }
  }
  if (parts.length === 0) {
    return acceptedApply
      ? {
          type: 'Recommended',
          status: 'True',
          lastTransitionTime: at,
          reason: 'AllExposedRisksAccepted',
          message:
            'The update is recommended, because all of the conditional update risks that apply to this cluster are accepted.',
        }
      : {
          type: 'Recommended',
          status: 'True',
          lastTransitionTime: at,
          reason: 'NotExposedToRisks',
          message: NOT_EXPOSED,
        };
  }
  const status = parts.some((p) => p.status === 'False') ? 'False' : 'Unknown';
  const reasons = [...new Set(parts.map((p) => p.reason))];
  return {
    type: 'Recommended',
    status,
    lastTransitionTime: at,
    reason: reasons.length === 1 ? reasons[0]! : 'MultipleReasons',
    message: parts.map((p) => p.message).join('\n\n'),
  };
}

export interface UpdateStatus {
  availableUpdates: ClusterRelease[] | null;
  conditionalUpdates: Array<{ release: ClusterRelease; risks: Risk[]; conditions: Condition[] }>;
}

/** availableUpdates gains every conditional update whose Recommended is True; both newest first. */
export function updateStatus(
  available: ClusterRelease[],
  conditional: Array<ConditionalUpdate & { conditions: Condition[] }>,
): UpdateStatus {
  const recommendedToo = conditional
    .filter((c) => c.conditions.some((k) => k.type === 'Recommended' && k.status === 'True'))
    .map((c) => c.release);
  const all = [...available, ...recommendedToo].sort((a, b) => compareDesc(a.version, b.version));
  return {
    availableUpdates: all.length ? all : null,
    conditionalUpdates: conditional.map((c) => ({ release: c.release, risks: c.risks, conditions: c.conditions })),
  };
}

const compareDesc = (a: string, b: string): number => semver.rcompare(a, b);
