// The simulated Lifecycle Agent (the image-based upgrade reconciler) in the test's process against a
// single-node InProcessCluster, with a client identity of its own, and the requests a user makes of the
// ImageBasedUpgrade through the Kubernetes API (merge patches, as kubectl patch sends them).
import pino from 'pino';
import { IbuCluster } from '@cincy/simulator/controllers/lifecycleAgent/cluster';
import { runLifecycleLoop } from '@cincy/simulator/controllers/lifecycleAgent/loop';
import { ImageBasedUpgradeReconciler } from '@cincy/simulator/controllers/lifecycleAgent/reconciler';
import type { ImageBasedUpgrade } from '@cincy/simulator/controllers/lifecycleAgent/status';
import { HOST_CONFIGMAP, hostFromData, type HostData } from '@cincy/simulator/controllers/singleNodeHost';
import type { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import type { LogLine } from '../../../test/support/inProcessAgent.js';

/** An API answer: the HTTP status and the body (an object, or a Status with its message). */
export interface Answer {
  code: number;
  body: { message?: string; status?: unknown; spec?: unknown; [k: string]: unknown };
}

export interface RunningLifecycleAgent {
  lines: LogLine[];
  /** Ends it as a kill does: its identity is revoked at once, then its loop stops. */
  kill(): Promise<void>;
}

export function startLifecycleAgent(cluster: InProcessCluster): RunningLifecycleAgent {
  const client = cluster.client('lifecycle-agent');
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  const abort = new AbortController();
  const reconciler = new ImageBasedUpgradeReconciler({
    cluster: new IbuCluster(client.api),
    clock: cluster.clock,
    log,
  });
  const loop = runLifecycleLoop(reconciler, { clock: cluster.clock, log, signal: abort.signal });
  return {
    lines,
    kill: async () => {
      cluster.revoke(client);
      abort.abort();
      await loop;
    },
  };
}

/** A user of the cluster: requests over HTTP as kubectl makes them, with the answer's status and body. */
export function user(cluster: InProcessCluster): {
  request(method: string, path: string, body?: unknown, type?: string): Promise<Answer>;
  patchIbu(patch: unknown): Promise<Answer>;
} {
  const token = cluster.token();
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    type = 'application/merge-patch+json',
  ): Promise<Answer> => {
    const res = await fetch(`${cluster.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { code: res.status, body: (await res.json()) as Answer['body'] };
  };
  return {
    request,
    patchIbu: (patch) => request('PATCH', '/apis/lca.openshift.io/v1/imagebasedupgrades/upgrade', patch),
  };
}

export const ibuOf = (cluster: InProcessCluster): ImageBasedUpgrade =>
  cluster.get('ImageBasedUpgrade', undefined, 'upgrade') as unknown as ImageBasedUpgrade;

export function hostOf(cluster: InProcessCluster): HostData {
  const cm = cluster.get('ConfigMap', HOST_CONFIGMAP.namespace, HOST_CONFIGMAP.name) as {
    data?: Record<string, string>;
  };
  return hostFromData(cm.data);
}

/** The last condition (what `kubectl get ibu` shows as STATE and DETAILS). */
export function latest(cluster: InProcessCluster): { type: string; reason: string; message: string } | undefined {
  const c = ibuOf(cluster).status?.conditions ?? [];
  return c[c.length - 1];
}

export function condition(
  cluster: InProcessCluster,
  type: string,
): { status: string; reason: string; message: string } | undefined {
  return ibuOf(cluster).status?.conditions?.find((c) => c.type === type);
}
