// Who may do what: RBAC (rbac.authorization.k8s.io/v1), and the reviews kubectl auth asks the server
// (authorization.k8s.io/v1 SelfSubjectAccessReview and SelfSubjectRulesReview, authentication.k8s.io/v1
// SelfSubjectReview), which are created and answered, never stored.
import { ageColumn } from './printing.js';
import { bool, free, arrayOf, map, obj, str } from './schema.js';
import type { StoredObject, PrinterColumn, ResourceKind } from './types.js';

const RULE = obj(
  'What may be done: verbs on resources (or URLs) of API groups.',
  {
    verbs: arrayOf('Verbs allowed (* for all).', { type: 'string' }),
    apiGroups: arrayOf('API groups of the resources.', { type: 'string' }),
    resources: arrayOf('Resources (* for all).', { type: 'string' }),
    resourceNames: arrayOf('Names of the objects, when only some.', { type: 'string' }),
    nonResourceURLs: arrayOf('URLs that are not resources (/healthz).', { type: 'string' }),
  },
  ['verbs'],
);

const SUBJECT = obj(
  'A user, group or service account.',
  {
    kind: str('User, Group or ServiceAccount.'),
    name: str('Its name.'),
    namespace: str('Namespace of a service account.'),
    apiGroup: str('API group of users and groups.'),
  },
  ['kind', 'name'],
);

const ROLE_REF = obj(
  'The role granted.',
  { apiGroup: str('API group of the role.'), kind: str('Role or ClusterRole.'), name: str('Its name.') },
  ['apiGroup', 'kind', 'name'],
);

const createdAt: PrinterColumn = {
  name: 'Created At',
  type: 'date',
  description: 'When the server created the object.',
  cell: (o) => o.metadata.creationTimestamp ?? '',
};

interface Binding {
  roleRef?: { kind?: string; name?: string };
  subjects?: Array<{ kind: string; name: string; namespace?: string }>;
}
const subjects = (o: StoredObject, kind: string): string =>
  ((o as Binding).subjects ?? [])
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name))
    .join(', ');
const BINDING_COLUMNS: PrinterColumn[] = [
  {
    name: 'Role',
    type: 'string',
    description: 'The role granted.',
    cell: (o) => `${(o as Binding).roleRef?.kind ?? ''}/${(o as Binding).roleRef?.name ?? ''}`,
  },
  ageColumn,
  { name: 'Users', type: 'string', priority: 1, description: 'Users granted it.', cell: (o) => subjects(o, 'User') },
  { name: 'Groups', type: 'string', priority: 1, description: 'Groups granted it.', cell: (o) => subjects(o, 'Group') },
  {
    name: 'ServiceAccounts',
    type: 'string',
    priority: 1,
    description: 'Service accounts granted it.',
    cell: (o) => subjects(o, 'ServiceAccount'),
  },
];

const rbac = (k: Omit<ResourceKind, 'group' | 'version' | 'definition' | 'names'>): ResourceKind => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  names: 'pathSegment',
  definition: `io.k8s.api.rbac.v1.${k.kind}`,
  ...k,
});

const ROLE_SCHEMA = (what: string): ReturnType<typeof obj> =>
  obj(what, {
    rules: arrayOf('What it allows.', RULE),
    aggregationRule: free('Cluster roles whose rules it gathers.'),
  });
const BINDING_SCHEMA = (what: string): ReturnType<typeof obj> =>
  obj(what, { roleRef: ROLE_REF, subjects: arrayOf('Who is granted the role.', SUBJECT) }, ['roleRef']);

export const RBAC_KINDS: ResourceKind[] = [
  rbac({
    plural: 'clusterroles',
    kind: 'ClusterRole',
    namespaced: false,
    schema: ROLE_SCHEMA('Permissions in every namespace, or on cluster-scoped resources.'),
    columns: [createdAt],
  }),
  rbac({
    plural: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    schema: BINDING_SCHEMA('Grants a cluster role to subjects in the whole cluster.'),
    columns: BINDING_COLUMNS,
  }),
  rbac({
    plural: 'roles',
    kind: 'Role',
    namespaced: true,
    schema: ROLE_SCHEMA('Permissions in one namespace.'),
    columns: [createdAt],
  }),
  rbac({
    plural: 'rolebindings',
    kind: 'RoleBinding',
    namespaced: true,
    schema: BINDING_SCHEMA('Grants a role or cluster role to subjects in one namespace.'),
    columns: BINDING_COLUMNS,
  }),
];

/** The kinds that are only created, and answered: the server keeps none of them. */
export const REVIEW_VERBS = ['create'];

export const SELF_SUBJECT_ACCESS_REVIEW: ResourceKind = {
  group: 'authorization.k8s.io',
  version: 'v1',
  plural: 'selfsubjectaccessreviews',
  kind: 'SelfSubjectAccessReview',
  namespaced: false,
  verbs: REVIEW_VERBS,
  definition: 'io.k8s.api.authorization.v1.SelfSubjectAccessReview',
  schema: obj('Asks whether the caller may do something.', {
    spec: obj('The action asked about.', {
      resourceAttributes: obj('An action on a resource.', {
        namespace: str('Namespace of the action.'),
        verb: str('The verb.'),
        group: str('API group of the resource.'),
        version: str('API version of the resource.'),
        resource: str('The resource.'),
        subresource: str('The subresource.'),
        name: str('Name of the object.'),
      }),
      nonResourceAttributes: obj('An action on a URL.', { path: str('The URL path.'), verb: str('The verb.') }),
    }),
    status: obj('The answer.', {
      allowed: bool('The caller may.'),
      denied: bool('The caller may not, whatever other authorizers say.'),
      reason: str('Why.'),
      evaluationError: str('What went wrong deciding.'),
    }),
  }),
};

export const SELF_SUBJECT_RULES_REVIEW: ResourceKind = {
  group: 'authorization.k8s.io',
  version: 'v1',
  plural: 'selfsubjectrulesreviews',
  kind: 'SelfSubjectRulesReview',
  namespaced: false,
  verbs: REVIEW_VERBS,
  definition: 'io.k8s.api.authorization.v1.SelfSubjectRulesReview',
  schema: obj('Lists what the caller may do in a namespace.', {
    spec: obj('The namespace asked about.', { namespace: str('The namespace.') }),
    status: obj('The answer.', {
      resourceRules: arrayOf('Actions allowed on resources.', RULE),
      nonResourceRules: arrayOf(
        'Actions allowed on URLs.',
        obj('Verbs on URLs.', {
          verbs: arrayOf('Verbs.', { type: 'string' }),
          nonResourceURLs: arrayOf('URLs.', { type: 'string' }),
        }),
      ),
      incomplete: bool('The list may miss rules.'),
      evaluationError: str('What went wrong listing.'),
    }),
  }),
};

export const SELF_SUBJECT_REVIEW: ResourceKind = {
  group: 'authentication.k8s.io',
  version: 'v1',
  plural: 'selfsubjectreviews',
  kind: 'SelfSubjectReview',
  namespaced: false,
  verbs: REVIEW_VERBS,
  definition: 'io.k8s.api.authentication.v1.SelfSubjectReview',
  schema: obj('Tells the caller who the server takes it for.', {
    status: obj('The answer.', {
      userInfo: obj('The user.', {
        username: str('User name.'),
        uid: str('User ID.'),
        groups: arrayOf('Groups.', { type: 'string' }),
        extra: map('Other attributes.', { type: 'array', items: { type: 'string' } }),
      }),
    }),
  }),
};

export const REVIEW_KINDS = [SELF_SUBJECT_ACCESS_REVIEW, SELF_SUBJECT_RULES_REVIEW, SELF_SUBJECT_REVIEW];
