// The kinds the mock cluster serves. Each is declared once, in the file of its API group (kinds/*.ts):
// its REST names and scope, its schema and the columns `kubectl get` prints. A new kind is added there
// and listed here.
import { apiVersionOf } from 'cincy/cluster/api';
import { REVIEW_KINDS, RBAC_KINDS } from './kinds/access.js';
import { CUSTOM_RESOURCE_DEFINITION } from './kinds/apiextensions.js';
import { LEASE } from './kinds/coordination.js';
import { IMAGE_BASED_UPGRADE } from './kinds/lca.js';
import { LCM_KINDS } from './kinds/lcm.js';
import { CORE_KINDS } from './kinds/core.js';
import { OBJECT_META } from './kinds/meta.js';
import { OPENSHIFT_KINDS } from './kinds/openshift.js';
import { define, arrayOf, obj, ref, str } from './kinds/schema.js';
import type { StoredObject, ResourceKind } from './kinds/types.js';
import { VELERO_KINDS } from './kinds/velero.js';
import { WORKLOAD_KINDS } from './kinds/workloads.js';

export type { Cell, StoredObject, PrinterColumn, ResourceKind } from './kinds/types.js';

export const KINDS: ResourceKind[] = [
  ...OPENSHIFT_KINDS,
  ...CORE_KINDS,
  ...WORKLOAD_KINDS,
  LEASE,
  ...RBAC_KINDS,
  CUSTOM_RESOURCE_DEFINITION,
  ...REVIEW_KINDS,
  // Add-on operators' APIs, served once their CRDs are installed (mock-cluster --single-node,
  // --workload-locks).
  IMAGE_BASED_UPGRADE,
  ...VELERO_KINDS,
  ...LCM_KINDS,
];

/** apiVersion, kind and metadata: the fields every object has beside those of its kind. */
const TYPE_FIELDS = {
  apiVersion: str('The versioned schema of this object (group/version).'),
  kind: str('The kind of this object.'),
};

// Each kind's whole schema, and its list's, as named definitions of the OpenAPI documents.
for (const k of KINDS) {
  define(
    k.definition,
    obj(
      k.schema.description ?? '',
      { ...TYPE_FIELDS, metadata: ref(OBJECT_META, 'Standard object metadata.'), ...k.schema.properties },
      k.schema.required,
    ),
  );
  define(
    `${k.definition}List`,
    obj(
      `A list of ${k.kind} objects.`,
      {
        ...TYPE_FIELDS,
        metadata: obj('Metadata of the list.', {
          resourceVersion: str('Version of the list, to watch from.'),
          continue: str('Token for the next page.'),
        }),
        items: arrayOf(`The ${k.kind} objects.`, ref(k.definition, '')),
      },
      ['items'],
    ),
  );
}

/** The schema of an object of `k` (a reference to its definition). */
export const objectSchema = (k: ResourceKind): ReturnType<typeof ref> => ref(k.definition, '');

/** The verbs a kind supports. */
export const verbsOf = (k: ResourceKind): string[] =>
  k.verbs ?? ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** Whether objects of the kind are kept (a review is only answered). */
export const stored = (k: ResourceKind): boolean => verbsOf(k).includes('get');

/** The kind named `kind` (e.g. 'Node'); every kind name is unique in KINDS. */
export function kindNamed(kind: string): ResourceKind {
  const k = KINDS.find((x) => x.kind === kind);
  if (!k) throw new Error(`unknown kind ${kind}`);
  return k;
}

/** The name of the CRD that declares `k` (`<plural>.<group>`). */
export const crdName = (k: ResourceKind): string => `${k.plural}.${k.group}`;

/** A kind's apiVersion: `group/version`, or `version` for the core group. */
export { apiVersionOf };

export function kindFor(o: StoredObject): ResourceKind {
  const k = KINDS.find((x) => x.kind === o.kind && apiVersionOf(x) === o.apiVersion);
  if (!k) throw new Error(`unknown kind ${o.apiVersion} ${o.kind}`);
  return k;
}
