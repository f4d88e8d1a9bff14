// Discovery: /api, /apis, /api/v1 and /apis/<group>/<version>, what clients read to find the kinds (their
// names, short names, scope, verbs and subresources), and /version.
import { apiVersionOf, verbsOf, type ResourceKind } from './kinds.js';
import { MOCK_KUBERNETES_VERSION } from './openapi.js';

/** The discovery document at `path` for the kinds served; undefined for a path that is not one. */
export function discoveryDoc(path: string, kinds: ResourceKind[]): object | undefined {
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  if (path === '/apis') {
    const groups = [...new Set(kinds.filter((k) => k.group).map((k) => `${k.group}/${k.version}`))].map((gv) => {
      const [name, version] = gv.split('/') as [string, string];
      return { name, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
    });
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }
  if (path === '/version') {
    const [major, minor] = MOCK_KUBERNETES_VERSION.slice(1).split('.');
    return { major, minor, gitVersion: `${MOCK_KUBERNETES_VERSION}-cincy-mock`, platform: 'linux/amd64' };
  }
  const m = /^\/api\/(v1)$/.exec(path) ?? /^\/apis\/([^/]+\/[^/]+)$/.exec(path);
  if (!m) return undefined;
  const inGroup = kinds.filter((k) => apiVersionOf(k) === m[1]);
  if (inGroup.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: m[1],
    resources: inGroup.flatMap((k) => [
      {
        name: k.plural,
        singularName: k.kind.toLowerCase(),
        namespaced: k.namespaced,
        kind: k.kind,
        verbs: verbsOf(k),
        ...(k.shortNames && { shortNames: k.shortNames }),
        ...(k.categories && { categories: k.categories }),
      },
      ...(k.status
        ? [
            {
              name: `${k.plural}/status`,
              singularName: '',
              namespaced: k.namespaced,
              kind: k.kind,
              verbs: ['get', 'patch', 'update'],
            },
          ]
        : []),
    ]),
  };
}
