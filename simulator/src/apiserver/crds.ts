// The CustomResourceDefinitions of the kinds OpenShift serves through one (ClusterVersion, ClusterOperator,
// MachineConfigPool, …), made from their declarations (kinds/*.ts): names, scope, schema, status
// subresource and printer columns, so `kubectl get crd` lists them as a real cluster does.
import { apiVersionOf, crdName, KINDS, kindNamed, type StoredObject, type ResourceKind } from './kinds.js';
import { render, ungated, type Schema } from './kinds/schema.js';
import type { ClusterState } from './state.js';

const TYPE_FIELDS: Record<string, Schema> = {
  apiVersion: { type: 'string', description: 'The versioned schema of this object (group/version).' },
  kind: { type: 'string', description: 'The kind of this object.' },
};

/** The CRD that declares `k`, with the fields of the feature gates in `gates` (none: the Default feature set). */
export function crdOf(k: ResourceKind, gates: ReadonlySet<string> = new Set()): StoredObject {
  const names = {
    plural: k.plural,
    singular: k.kind.toLowerCase(),
    kind: k.kind,
    listKind: `${k.kind}List`,
    ...(k.shortNames && { shortNames: k.shortNames }),
  };
  const schema = render(
    {
      type: 'object',
      description: k.schema.description,
      properties: { ...TYPE_FIELDS, metadata: { type: 'object' }, ...ungated(k.schema, gates).properties },
      ...(k.schema.required && { required: k.schema.required }),
    },
    '',
    true,
  );
  return {
    apiVersion: apiVersionOf(kindNamed('CustomResourceDefinition')),
    kind: 'CustomResourceDefinition',
    metadata: {
      name: crdName(k),
      annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true' },
    },
    spec: {
      group: k.group,
      names,
      scope: k.namespaced ? 'Namespaced' : 'Cluster',
      versions: [
        {
          name: k.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          ...(k.status && { subresources: { status: {} } }),
          ...(k.columns && {
            additionalPrinterColumns: k.columns.map((c) => ({
              name: c.name,
              type: c.type,
              jsonPath: c.jsonPath,
              ...(c.description && { description: c.description }),
              ...(c.priority && { priority: c.priority }),
            })),
          }),
        },
      ],
    },
  };
}

/** The status the API server gives an accepted, established CRD. */
function established(crd: StoredObject, at: string): object {
  const spec = crd.spec as { names: object; versions: Array<{ name: string }> };
  const condition = (type: string, reason: string, message: string): object => ({
    type,
    status: 'True',
    lastTransitionTime: at,
    reason,
    message,
  });
  return {
    conditions: [
      condition('NamesAccepted', 'NoConflicts', 'no conflicts found'),
      condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
    ],
    acceptedNames: spec.names,
    storedVersions: spec.versions.map((v) => v.name),
  };
}

/** The kinds the cluster serves now: every built-in one, and each optional one whose CRD the state holds. */
export function servedKinds(state: ClusterState): ResourceKind[] {
  const crd = kindNamed('CustomResourceDefinition');
  return KINDS.filter((k) => !k.optional || state.has(crd, undefined, crdName(k)));
}

/**
 * Creates the CRD of each kind OpenShift serves through one that the state lacks, and of each optional kind
 * whose group is in `groups` (the add-on operators this cluster has), with the fields of the feature gates
 * in `gates`; `createdAt` (ms) dates them.
 */
export function installCrds(
  state: ClusterState,
  createdAt: number,
  groups: readonly string[] = [],
  gates: ReadonlySet<string> = new Set(),
): void {
  const kind = kindNamed('CustomResourceDefinition');
  for (const k of KINDS.filter((x) => (x.crd || x.optional) && (!x.optional || groups.includes(x.group)))) {
    const crd = crdOf(k, gates);
    if (state.has(kind, undefined, crd.metadata.name)) continue;
    const made = state.create(kind, undefined, crd, createdAt);
    state.update(
      kind,
      undefined,
      made.metadata.name,
      { ...made, status: established(made, made.metadata.creationTimestamp!) },
      'status',
    );
  }
}
