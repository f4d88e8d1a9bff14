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

/** The most replicas an UpdateService may ask for: more is a typo (`1e9`), not a deployment. */
export const MAX_REPLICAS = 100;
/** The longest pull spec taken: a registry host, a path and a digest fit in far less. */
const MAX_PULL_SPEC = 1024;
/** A Service name: an RFC 1035 label (the API server refuses any other). */
const DNS_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The spec's values as the operands use them: pull specs without surrounding spaces. */
export function trimmedSpec(spec: UpdateServiceSpec): UpdateServiceSpec {
  return { ...spec, releases: spec.releases.trim(), graphDataImage: spec.graphDataImage.trim() };
}

/**
 * Why the spec cannot be served, one line per field (empty when it can), and, given the resource's
 * name, why the objects made for it could not be named: checked before anything is applied, so a
 * resource that cannot be served leaves nothing half made.
 */
export function specProblems(
  given: Partial<UpdateServiceSpec> | undefined,
  name?: string,
  /** The namespace, when a Route is made: the router names its host `<route>-<namespace>.<domain>`. */
  routeNamespace?: string,
): string[] {
  const problems: string[] = [];
  const spec = given && {
    ...given,
    ...(typeof given.releases === 'string' && { releases: given.releases.trim() }),
    ...(typeof given.graphDataImage === 'string' && { graphDataImage: given.graphDataImage.trim() }),
  };
  for (const field of ['releases', 'graphDataImage'] as const) {
    const value = spec?.[field];
    if (typeof value === 'string' && value.length > MAX_PULL_SPEC) {
      problems.push(`spec.${field}: longer than ${MAX_PULL_SPEC} characters`);
      return problems;
    }
  }
  if (name !== undefined && routeNamespace !== undefined && `${operandNames(name).route}-${routeNamespace}`.length > 63)
    problems.push(
      `metadata.name: '${name.slice(0, 80)}' makes the Route host '${operandNames(name).route}-${routeNamespace.slice(0, 80)}.…', whose first label is over 63 characters: the router would never admit it; use a shorter name`,
    );
  if (name !== undefined && !DNS_LABEL.test(operandNames(name).service))
    problems.push(
      `metadata.name: '${name.slice(0, 80)}' makes the Service name '${operandNames(name).service.slice(0, 80)}', not a DNS label (at most 63 characters, a-z, 0-9 and '-', starting with a letter): use a shorter name`,
    );
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
  if (!Number.isInteger(spec?.replicas) || spec!.replicas! < 1 || spec!.replicas! > MAX_REPLICAS)
    problems.push(`spec.replicas: a whole number from 1 to ${MAX_REPLICAS}`);
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
