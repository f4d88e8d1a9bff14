// The cluster a command talks to: --in-cluster (the pod's service account), --kubeconfig FILE, or the
// client's defaults ($KUBECONFIG, then ~/.kube/config, then the service account of a pod). Which one was
// used is remembered with the configuration, so that an error can say whose credentials were refused.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '#kubernetes-client';
import type { ClusterApi } from '../cluster/api.js';
import { HttpClusterApi } from '../cluster/http.js';
import type { ClusterOrigin } from './kubeErrors.js';
import { PACKAGE_VERSION } from '../version.js';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
const sources = new WeakMap<KubeConfig, string>();

/** A kubeconfig file, read first so that a missing or unreadable one is one clear line naming it. */
function loadFile(kc: KubeConfig, file: string, named: string): void {
  try {
    readFileSync(file);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new Error(`${named}: cannot read ${file}: ${why}`);
  }
  try {
    kc.loadFromFile(file);
  } catch (err) {
    throw new Error(`${named}: ${file} is not a kubeconfig: ${(err as Error).message.split('\n')[0]}`);
  }
}

export function loadKubeConfig(o: { kubeconfig?: string; inCluster?: boolean }): KubeConfig {
  const kc = new KubeConfig();
  const fromEnv = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  const home = join(homedir(), '.kube', 'config');
  let source: string;
  if (o.inCluster || (!o.kubeconfig && !fromEnv.length && !existsSync(home) && inPod())) {
    kc.loadFromCluster();
    source = 'the service account token';
  } else if (o.kubeconfig) {
    loadFile(kc, o.kubeconfig, '--kubeconfig');
    source = `${o.kubeconfig} (--kubeconfig)`;
  } else if (fromEnv.length) {
    const present = fromEnv.filter((f) => existsSync(f));
    if (!present.length) throw new Error(`KUBECONFIG: cannot read ${fromEnv.join(delimiter)}: no such file`);
    if (present.length === 1) loadFile(kc, present[0]!, 'KUBECONFIG');
    else kc.loadFromDefault(); // several files merged, as kubectl merges them
    source = `KUBECONFIG (${present.join(delimiter)})`;
  } else if (existsSync(home)) {
    loadFile(kc, home, '~/.kube/config');
    source = home;
  } else {
    throw new Error('no kubeconfig: set --kubeconfig or KUBECONFIG');
  }
  if (!kc.getCurrentCluster())
    throw new Error(`${source}: no current cluster (current-context "${kc.getCurrentContext() ?? ''}")`);
  sources.set(kc, source);
  return kc;
}

const inPod = (): boolean => !!process.env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN);

/**
 * The API of the cluster a kubeconfig names, writing as `fieldManager` (`cincy-agent` for the agent, `cincy`
 * for the commands a person runs).
 */
export function clusterApi(kc: KubeConfig, fieldManager: string): HttpClusterApi {
  return new HttpClusterApi(kc, { fieldManager, userAgent: `${fieldManager}/${PACKAGE_VERSION}` });
}

/** A command's cluster: its API, and whom it asks (an error names whose credentials failed). */
export interface ClusterClient {
  api: ClusterApi;
  origin: ClusterOrigin;
}

/** Whom a kubeconfig asks, for messages. */
export function originOf(kc: KubeConfig): ClusterOrigin {
  const user = kc.getCurrentUser();
  const credential =
    user?.token || user?.authProvider || user?.exec
      ? 'token'
      : user?.certData || user?.certFile
        ? 'client certificate'
        : 'credentials (none given)';
  return {
    server: kc.getCurrentCluster()?.server ?? 'the cluster',
    credential,
    source: sources.get(kc) ?? 'the kubeconfig',
  };
}

/** The cluster of a command's --kubeconfig / --in-cluster, writing as `cincy`. */
export function connectCluster(o: { kubeconfig?: string; inCluster?: boolean }): ClusterClient {
  const kc = loadKubeConfig(o);
  return { api: clusterApi(kc, 'cincy'), origin: originOf(kc) };
}
