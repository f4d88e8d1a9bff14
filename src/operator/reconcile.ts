// One pass for one UpdateService: its objects applied server-side (created when absent, changed where they
// differ, left alone where they do not), copies no longer needed removed, and the status the
// cincinnati-operator writes (policyEngineURI and its three conditions) written when it changed. A spec
// that cannot be served is said in the status and changes nothing: what ran before keeps serving.
import { isDeepStrictEqual } from 'node:util';
import type { ClusterApi, KubeObject } from '../cluster/api.js';
import { apiMessage, isConflict, isNotFound } from '../cluster/apiError.js';
import { RESOURCES } from '../cluster/resources.js';
import type { ReadInputs } from './clusterInputs.js';
import { operands } from './operands.js';
import {
  operandNames,
  setUpdateServiceCondition,
  specProblems,
  type UpdateServiceCondition,
  type UpdateService,
  type UpdateServiceStatus,
} from './updateService.js';

export interface ReconcileResult {
  status: UpdateServiceStatus;
  /** Whether the status was written (false when it was already so, or the write lost a race). */
  statusWritten: boolean;
  /** The failure that stopped the pass, when one did. */
  failure?: string;
}

type Step = Omit<UpdateServiceCondition, 'lastHeartbeatTime' | 'lastTransitionTime'>;

export async function reconcileUpdateService(
  api: ClusterApi,
  us: UpdateService,
  inputs: ReadInputs,
  o: { image: string; now: string },
): Promise<ReconcileResult> {
  let conditions = us.status?.conditions ?? [];
  const set = (c: Step): void => void (conditions = setUpdateServiceCondition(conditions, c, o.now));
  set(inputs.caCondition);
  let policyEngineURI = us.status?.policyEngineURI;
  let failure: string | undefined;
  const problems = specProblems(us.spec, us.metadata.name, inputs.routes ? us.metadata.namespace : undefined);
  if (problems.length) {
    failure = problems.join('; ');
    set({ type: 'ReconcileCompleted', status: 'False', reason: 'InvalidSpec', message: failure });
    set({ type: 'ReconcileError', status: 'True', reason: 'InvalidSpec', message: failure });
  } else {
    try {
      const applied = await applyAll(api, us, inputs, o.image);
      await removeUnneeded(api, us, inputs);
      const where = policyEngine(us, inputs.routes ? applied.find((x) => x.kind === 'Route') : undefined);
      policyEngineURI = where.uri;
      const notes = [...inputs.notes, ...(where.note ? [where.note] : [])];
      set({ type: 'ReconcileCompleted', status: 'True', reason: 'Success', message: notes.join('; ') });
      set({ type: 'ReconcileError', status: 'False', reason: 'Success', message: '' });
    } catch (err) {
      if (!(err instanceof ApplyError)) throw err;
      failure = err.message;
      set({ type: 'ReconcileCompleted', status: 'False', reason: err.reason, message: err.message });
      set({ type: 'ReconcileError', status: 'True', reason: err.reason, message: err.message });
    }
  }
  const status: UpdateServiceStatus = { ...(policyEngineURI && { policyEngineURI }), conditions };
  const statusWritten = await writeStatus(api, us, status);
  return { status, statusWritten, ...(failure && { failure }) };
}

/** An object the API server refused: `Apply<Kind>Failed`, naming the object. */
class ApplyError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

async function applyAll(api: ClusterApi, us: UpdateService, inputs: ReadInputs, image: string): Promise<KubeObject[]> {
  const applied: KubeObject[] = [];
  for (const { resource, object } of operands(us, image, inputs)) {
    const key = { name: object.metadata.name, namespace: object.metadata.namespace! };
    try {
      applied.push(await api.patch(resource, key, { type: 'apply', body: object, force: true }));
    } catch (err) {
      throw new ApplyError(
        `Apply${object.kind}Failed`,
        `${object.kind} ${key.namespace}/${key.name}: ${apiMessage(err)}`,
      );
    }
  }
  return applied;
}

/** The copies of the pull secret and the CA once the cluster no longer has them, when they are this service's. */
async function removeUnneeded(api: ClusterApi, us: UpdateService, inputs: ReadInputs): Promise<void> {
  const names = operandNames(us.metadata.name);
  const namespace = us.metadata.namespace!;
  const unneeded = [
    ...(inputs.pullSecret ? [] : [{ resource: RESOURCES.secrets, name: names.pullSecret }]),
    ...(inputs.registryCa ? [] : [{ resource: RESOURCES.configMaps, name: names.trustedCa }]),
  ];
  for (const { resource, name } of unneeded) {
    try {
      const found = await api.get(resource, { name, namespace });
      const owners = (found.metadata.ownerReferences ?? []) as Array<{ uid?: string }>;
      if (owners.some((r) => r.uid === us.metadata.uid)) await api.delete(resource, { name, namespace });
    } catch (err) {
      if (!isNotFound(err))
        throw new ApplyError('DeleteFailed', `${resource.resource} ${namespace}/${name}: ${apiMessage(err)}`);
    }
  }
}

/**
 * Where clusters reach the service: the Route's host once a router has admitted it (https, as the route ends
 * TLS), else, in a cluster without routes, the Service's name inside the cluster.
 */
function policyEngine(us: UpdateService, route: KubeObject | undefined): { uri?: string; note?: string } {
  const names = operandNames(us.metadata.name);
  if (!route) return { uri: `http://${names.service}.${us.metadata.namespace}.svc` };
  const ingress = ((route.status as { ingress?: unknown[] } | undefined)?.ingress ?? []) as Array<{
    host?: string;
    conditions?: Array<{ type?: string; status?: string }>;
  }>;
  const admitted = ingress.find(
    (i) => i.host && (i.conditions ?? []).some((c) => c.type === 'Admitted' && c.status === 'True'),
  );
  if (!admitted) return { note: `the Route ${names.route} is not admitted by a router yet: no policyEngineURI` };
  return { uri: `https://${admitted.host}` };
}

async function writeStatus(api: ClusterApi, us: UpdateService, status: UpdateServiceStatus): Promise<boolean> {
  if (isDeepStrictEqual(us.status ?? {}, status)) return false;
  try {
    await api.replaceStatus(RESOURCES.updateServices, { ...us, status });
    return true;
  } catch (err) {
    // Someone wrote the resource since it was read: its event brings another pass.
    if (isConflict(err)) return false;
    throw err;
  }
}
