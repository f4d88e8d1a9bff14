// The accept-risks API of the cluster-version-operator (feature gate ClusterUpdateAcceptRisks, openshift/api
// config/v1, enhancement update/accepted-risks.md): whether it is on for a cluster, and which risks of a
// conditional update stand between it and the update.
import { ClusterApiError, type ClusterApi, type KubeObject } from '../cluster/api.js';
import { RESOURCES } from '../cluster/resources.js';
import type { ClusterVersion, ConditionalUpdateStatus, RiskStatus } from './clusterVersion.js';

/** Whether the agent serves the API: as the cluster's FeatureGate says (`auto`), or forced. */
export type AcceptRisksFeature = 'auto' | 'enabled' | 'disabled';
export const ACCEPT_RISKS_MODES: readonly AcceptRisksFeature[] = ['auto', 'enabled', 'disabled'];
export const ACCEPT_RISKS_GATE = 'ClusterUpdateAcceptRisks';

/** The part of a FeatureGate read here: the gates each version has on. */
interface FeatureGate extends KubeObject {
  status?: {
    featureGates?: Array<{ version?: string; enabled?: Array<{ name: string }>; disabled?: Array<{ name: string }> }>;
  };
}

/**
 * On when forced, or when the FeatureGate `cluster` enables the gate for the running version (status.desired,
 * the release the cluster reconciles to, as the CVO reads the gates of the payload it runs); off without one.
 */
export async function acceptRisksOn(api: ClusterApi, cv: ClusterVersion, mode: AcceptRisksFeature): Promise<boolean> {
  if (mode !== 'auto') return mode === 'enabled';
  // No FeatureGate, or none the agent may read (its role lacks featuregates): the feature is off, as on a
  // cluster without the gate; --accept-risks enabled turns it on regardless.
  const gate = await api.get<FeatureGate>(RESOURCES.featureGates, { name: 'cluster' }).catch((err: unknown) => {
    if (err instanceof ClusterApiError && (err.status === 404 || err.status === 403)) return undefined;
    throw err;
  });
  const running = gate?.status?.featureGates?.find((g) => g.version === cv.status.desired?.version);
  // A gate listed disabled stays off, whatever the enabled list says.
  if (running?.disabled?.some((g) => g.name === ACCEPT_RISKS_GATE)) return false;
  return running?.enabled?.some((g) => g.name === ACCEPT_RISKS_GATE) ?? false;
}

/** The names in spec.desiredUpdate.acceptRisks. */
export const acceptedRiskNames = (cv: ClusterVersion): Set<string> =>
  new Set((cv.spec.desiredUpdate?.acceptRisks ?? []).map((r) => r.name));

/** The names of a conditional update's risks: riskNames when written, else those of its risks. */
export const riskNamesOf = (update: ConditionalUpdateStatus): string[] =>
  update.riskNames ?? update.risks.map((r) => r.name);

/**
 * The risks of a conditional update that keep the CVO from taking it with the feature on: those that apply
 * to the cluster (or whose evaluation failed) and are not in spec.desiredUpdate.acceptRisks.
 */
export function unacceptedRisks(
  update: ConditionalUpdateStatus,
  risks: RiskStatus[] | undefined,
  accepted: ReadonlySet<string>,
): string[] {
  const applies = new Map((risks ?? []).map((r) => [r.name, r.conditions.find((k) => k.type === 'Applies')?.status]));
  return riskNamesOf(update).filter((name) => applies.get(name) !== 'False' && !accepted.has(name));
}
