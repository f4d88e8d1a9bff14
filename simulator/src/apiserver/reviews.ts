// The reviews kubectl auth asks the server (can-i, can-i --list, whoami), answered for the mock's one
// identity: every token it accepts is its administrator's, bound to cluster-admin through system:masters,
// as a cluster's kubeadmin kubeconfig is. Reviews are answered, never stored.
import { apiVersionOf, type StoredObject, type ResourceKind } from './kinds.js';
import { KubeError } from './kubeError.js';

export const ADMIN = { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] };
const ALLOWED =
  'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"';

/** The answer to a review of kind `kind` (a 400 for a body that is not an object). */
export function answerReview(kind: ResourceKind, body: unknown): StoredObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new KubeError(
      400,
      'BadRequest',
      `${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: the body must be a JSON object`,
    );
  const review = body as { spec?: unknown };
  const base = { apiVersion: apiVersionOf(kind), kind: kind.kind, metadata: { creationTimestamp: null } as never };
  switch (kind.kind) {
    case 'SelfSubjectAccessReview':
      return { ...base, spec: review.spec ?? {}, status: { allowed: true, reason: ALLOWED } };
    case 'SelfSubjectRulesReview':
      return {
        ...base,
        spec: review.spec ?? {},
        status: {
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
          incomplete: false,
        },
      };
    default:
      return { ...base, status: { userInfo: ADMIN } };
  }
}
