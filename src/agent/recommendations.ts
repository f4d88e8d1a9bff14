// What the agent writes into ClusterVersion status, by the cluster-version-operator's rules
// (pkg/cvo/availableupdates.go): each risk evaluated once under its name, the Recommended condition of
// each conditional update folded over its own risks (reasons, their own messages, precedence, accepted risks),
// availableUpdates and conditionalUpdates, with lastTransitionTime kept while a condition's status holds.
import semver from 'semver';
import type { Risk } from '../graph/model.js';
import type { ConditionalUpdate } from './cincinnati.js';
import type { ClusterRelease, ConditionalUpdateStatus, RiskStatus } from './clusterVersion.js';
import type { Condition } from './conditions.js';
import type { Exposure } from './risks.js';

export const NOT_EXPOSED =
  'The update is recommended, because none of the conditional update risks apply to this cluster.';
export const ALL_ACCEPTED =
  'The update is recommended, because either risk does not apply to this cluster or it is accepted by cluster admins.';
/** A condition's message at most (metav1.Condition's schema): an update with very many risks is cut, not refused. */
export const MAX_CONDITION_MESSAGE = 32_768;
const REASON_NAME = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/**
 * Each risk once, under its name, with the definition of the highest target that carries it (the one the
 * CVO evaluates), in name order, as status.conditionalUpdateRisks lists them.
 */
export function risksByName(conditional: Array<{ release: ClusterRelease; risks: Risk[] }>): Risk[] {
  const highest = new Map<string, { version: string; risk: Risk }>();
  for (const c of conditional)
    for (const risk of c.risks) {
      const seen = highest.get(risk.name);
      if (!seen || semver.gt(c.release.version, seen.version))
        highest.set(risk.name, { version: c.release.version, risk });
    }
  return [...highest.values()].map((h) => h.risk).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The Applies condition of a risk, from its evaluation. */
export function appliesCondition(risk: Risk, exposure: Exposure, at: string): Condition {
  const base = { type: 'Applies', lastTransitionTime: at, message: '' };
  if ('unknown' in exposure)
    return { ...base, status: 'Unknown', reason: 'EvaluationFailed', message: unknownExposure(risk, exposure.unknown) };
  return exposure.applies
    ? { ...base, status: 'True', reason: 'Match' }
    : { ...base, status: 'False', reason: 'NotMatch' };
}

/** Why a risk's exposure is unknown, quoting that risk's own description and URL (the CVO's unknownExposureMessage). */
function unknownExposure(risk: Risk, why: string): string {
  return `Could not evaluate exposure to update risk ${risk.name} (${why})\n  ${risk.name} description: ${risk.message}\n  ${risk.name} URL: ${risk.url}`;
}

/** The worse of two statuses: False over Unknown over True. */
function worse(now: Condition['status'], next: Condition['status']): Condition['status'] {
  if (now === 'False' || next === 'False') return 'False';
  if (now === 'Unknown' || next === 'Unknown') return 'Unknown';
  return next;
}

/** The reason after one more risk: a first real reason stands alone, a second different one makes MultipleReasons. */
function combined(now: string, next: string): string {
  if (now === 'NotExposedToRisks' || now === 'AllExposedRisksAccepted' || now === next) return next;
  if (next === 'NotExposedToRisks') return now;
  return 'MultipleReasons';
}

/**
 * The Recommended condition of one update, folded over its own risks in the order the graph lists them:
 * a risk that applies makes it False with the risk's name as reason (its message and URL quoted), one
 * whose evaluation failed makes it Unknown (EvaluationFailed, why quoted), and with `accepted` given (the
 * accept-risks feature on) an applying risk named there keeps it True (AllExposedRisksAccepted). Messages
 * of the risks that count are joined by a blank line. A risk is evaluated once under its name
 * (`exposures`), but the text quoted is always this update's own definition of it, as release-4.15's
 * evaluateConditionalUpdate (pkg/cvo/availableupdates.go) quotes each update's risk: two definitions of
 * one name may share their rules and differ in their message.
 */
export function recommended(
  risks: Risk[],
  exposures: ReadonlyMap<string, Exposure>,
  accepted: ReadonlySet<string> | undefined,
  at: string,
): Condition {
  let status: Condition['status'] = 'True';
  let reason = 'NotExposedToRisks';
  let message = NOT_EXPOSED;
  const messages: string[] = [];
  for (const risk of risks) {
    const exposure = exposures.get(risk.name);
    if (!exposure || 'unknown' in exposure) {
      status = worse(status, 'Unknown');
      reason = combined(reason, 'EvaluationFailed');
      messages.push(
        exposure ? unknownExposure(risk, exposure.unknown) : `failed to find risk condition for risk ${risk.name}`,
      );
    } else if (exposure.applies) {
      if (accepted?.has(risk.name)) {
        status = worse(status, 'True');
        reason = combined(reason, 'AllExposedRisksAccepted');
        message = ALL_ACCEPTED;
      } else {
        status = worse(status, 'False');
        reason = combined(reason, REASON_NAME.test(risk.name) ? risk.name : 'ExposedToRisks');
        messages.push(`${risk.message} ${risk.url}`);
      }
    }
  }
  if (messages.length) message = messages.join('\n\n');
  if (message.length > MAX_CONDITION_MESSAGE) message = `${message.slice(0, MAX_CONDITION_MESSAGE - 1)}…`;
  return { type: 'Recommended', status, lastTransitionTime: at, reason, message };
}

export interface UpdateStatus {
  availableUpdates: ClusterRelease[] | null;
  conditionalUpdates: ConditionalUpdateStatus[];
  /** Present with the accept-risks feature on; the key is removed from status otherwise. */
  conditionalUpdateRisks?: RiskStatus[];
}

/**
 * availableUpdates gains every conditional update whose Recommended is True; both newest first. With
 * `risks` (the accept-risks feature on) each update names its risks and the risks are listed once.
 */
export function updateStatus(
  available: ClusterRelease[],
  conditional: Array<ConditionalUpdate & { conditions: Condition[] }>,
  risks?: RiskStatus[],
): UpdateStatus {
  const recommendedToo = conditional
    .filter((c) => c.conditions.some((k) => k.type === 'Recommended' && k.status === 'True'))
    .map((c) => c.release);
  const all = [...available, ...recommendedToo].sort((a, b) => compareDesc(a.version, b.version));
  const appliesOf = new Map((risks ?? []).map((r) => [r.name, r.conditions]));
  return {
    availableUpdates: all.length ? all : null,
    conditionalUpdates: conditional.map((c) => ({
      release: c.release,
      ...(risks && { riskNames: c.risks.map((r) => r.name) }),
      // With the feature on, each risk also carries the Applies condition of its name, as the CVO writes it.
      risks: risks ? c.risks.map((r) => ({ ...r, conditions: appliesOf.get(r.name) ?? [] })) : c.risks,
      conditions: c.conditions,
    })),
    // Omitted when empty, as the CVO omits it (the schema wants one item at least).
    ...(risks?.length && { conditionalUpdateRisks: risks }),
  };
}

const compareDesc = (a: string, b: string): number => semver.rcompare(a, b);
