// How the agent reaches the update service, as the cluster-version-operator decides it (pkg/cvo/egress.go):
// the CA bundle of the ConfigMap openshift-config-managed/trusted-ca-bundle, and the cluster-wide proxy of the
// Proxy object `cluster`. Either may be absent (404: the system's CAs, no proxy); any other failure to read
// them fails the poll, which keeps the updates it had, rather than going on with the wrong trust or route.
import type { ClusterApi } from '../cluster/api.js';
import { apiMessage, unlessNotFound } from '../cluster/apiError.js';
import { RESOURCES, type ConfigMap } from '../cluster/resources.js';
import type { TransportOptions } from './cincinnati.js';

export const TRUSTED_CA_BUNDLE = { namespace: 'openshift-config-managed', name: 'trusted-ca-bundle' };

/** `configured` (flags) first; the cluster's bundle and proxy fill what it leaves open; then HTTPS_PROXY. */
export async function clusterTransport(api: ClusterApi, configured: TransportOptions = {}): Promise<TransportOptions> {
  const t: TransportOptions = { ...configured };
  if (!t.ca) {
    const bundle = await readOrAbsent('ConfigMap openshift-config-managed/trusted-ca-bundle', () =>
      api.get<ConfigMap>(RESOURCES.configMaps, TRUSTED_CA_BUNDLE),
    );
    const pem = bundle?.data?.['ca-bundle.crt'];
    if (pem) t.ca = pem;
  }
  const proxy = (await readOrAbsent('Proxy cluster', () => api.get(RESOURCES.proxies, { name: 'cluster' }))) as
    { status?: { httpsProxy?: string; noProxy?: string } } | undefined;
  if (proxy?.status?.httpsProxy) return { ...t, proxy: proxy.status.httpsProxy, noProxy: proxy.status.noProxy };
  const env = process.env.HTTPS_PROXY ?? process.env.https_proxy;
  return env ? { ...t, proxy: env, noProxy: process.env.NO_PROXY ?? process.env.no_proxy } : t;
}

/** The object, or undefined when it does not exist; any other failure is said with what was read. */
function readOrAbsent<T>(what: string, read: () => Promise<T>): Promise<T | undefined> {
  return unlessNotFound(read()).catch((err: unknown) => {
    throw new Error(`cannot read ${what}: ${apiMessage(err)}`);
  });
}
