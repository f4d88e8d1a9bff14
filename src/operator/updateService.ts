// The UpdateService resource (updateservice.operator.openshift.io/v1, the cincinnati-operator's CRD, used
// unchanged): what its spec asks for, the names of the objects made for it, and the conditions of its status.
import type { KubeObject } from '../cluster/api.js';
import { parseImage, parseRepository, ReferenceError } from '../registry/reference.js';

export interface UpdateServiceSpec {
  /** The repository release images are tagged in: `mirror.example.com/openshift/release-images`. */
  releases: string;
  /** The image holding the graph-data tree under /var/lib/cincinnati-graph-data/. */
  graphDataImage: string;
  replicas: number;
}

export interface UpdateServiceCondition {
  type: ConditionType;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface UpdateServiceStatus {
  /** Where clusters reach the service: `<uri>/api/upgrades_info/v1/graph` is the graph. */
  policyEngineURI?: string;
  conditions?: UpdateServiceCondition[];
}

export interface UpdateService extends KubeObject {
  spec: UpdateServiceSpec;
  status?: UpdateServiceStatus;
}

/** The conditions the cincinnati-operator writes, by the same names. */
export const CONDITION_TYPES = ['ReconcileCompleted', 'RegistryCACertFound', 'ReconcileError'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

/** The names of what is made for UpdateService `name`: the cincinnati-operator's, so scripts written for it still find them. */
export const operandNames = (name: string) => ({
  deployment: name,
  podDisruptionBudget: name,
  env: `${name}-env`,
  service: `${name}-policy-engine`,
  route: `${name}-route`,
  trustedCa: `${name}-trusted-ca`,
  pullSecret: `${name}-pull-secret`,
});

/** Why the spec cannot be served, one line per field (empty when it can). */
export function specProblems(spec: Partial<UpdateServiceSpec> | undefined): string[] {
  const problems: string[] = [];
  const check = (f: () => unknown): void => {
    try {
      f();
    } catch (err) {
      if (!(err instanceof ReferenceError)) throw err;
      problems.push(err.message);
    }
  };
  if (typeof spec?.releases !== 'string') problems.push('spec.releases: missing');
  // A repository: `HOST[:PORT]/PATH`, read over HTTPS as a pull spec names it.
  else check(() => parseRepository(spec.releases!, 'spec.releases'));
  if (typeof spec?.graphDataImage !== 'string') problems.push('spec.graphDataImage: missing');
  else check(() => parseImage(spec.graphDataImage!, 'spec.graphDataImage'));
  if (spec?.releases?.includes('://')) problems.push('spec.releases: a pull spec names no scheme');
  if (spec?.graphDataImage?.includes('://')) problems.push('spec.graphDataImage: a pull spec names no scheme');
  if (!Number.isInteger(spec?.replicas) || spec!.replicas! < 1)
    problems.push('spec.replicas: a whole number, 1 or more');
  return problems;
}

/**
 * `conditions` with `next` set: its transition time kept while its status stays, and its heartbeat moved
 * only when something of it changes (so that an unchanged status is not written again).
 */
export function setUpdateServiceCondition(
  conditions: UpdateServiceCondition[],
  next: Omit<UpdateServiceCondition, 'lastHeartbeatTime' | 'lastTransitionTime'>,
  now: string,
): UpdateServiceCondition[] {
  const old = conditions.find((c) => c.type === next.type);
  const same =
    old && old.status === next.status && old.reason === next.reason && (old.message ?? '') === (next.message ?? '');
  const condition: UpdateServiceCondition = same
    ? old
    : {
        ...next,
        lastHeartbeatTime: now,
        lastTransitionTime: old && old.status === next.status ? (old.lastTransitionTime ?? now) : now,
      };
  return [...conditions.filter((c) => c.type !== next.type), condition].sort(
    (a, b) => CONDITION_TYPES.indexOf(a.type) - CONDITION_TYPES.indexOf(b.type),
  );
}
