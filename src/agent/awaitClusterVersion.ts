// The agent's first step: a ClusterVersion to work on. Started with a cluster that is still being made,
// the agent finds no ClusterVersion kind, or no object yet, or one whose status the cluster has not written
// (on a real API server, a create drops status: it comes in a second write). It waits, asking every 3 s
// as the cluster-version-operator does ("No cluster version object, waiting for one" in LoadInitialPayload,
// pkg/cvo/cvo.go, while availableUpdatesSync does nothing without it), and says why in its log at most
// once a minute for the same reason.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { ClusterApi } from '../cluster/api.js';
import { apiMessage, isNotFound } from '../cluster/apiError.js';
import { ClusterVersionClient, type ClusterVersion } from './clusterVersion.js';

export interface AwaitOptions {
  api: ClusterApi;
  log: Logger;
  clock: Clock;
  signal: AbortSignal;
  /** Between two reads; 3 s as the CVO polls. */
  retryMs?: number;
  /** Between two log lines of the same reason. */
  logEveryMs?: number;
}

/** Why this ClusterVersion cannot be worked on yet, or undefined when it can. */
export function notReady(cv: ClusterVersion): string | undefined {
  if (!cv.status?.desired?.version || !cv.status.desired.image)
    return 'the ClusterVersion has no status.desired (version and image) yet, waiting for the cluster to write it';
  if (!cv.spec?.clusterID) return 'the ClusterVersion has no spec.clusterID yet, waiting for one';
  return undefined;
}

/** Resolves with the ClusterVersion once it can be worked on; undefined when the signal ends the wait first. */
export async function awaitClusterVersion(o: AwaitOptions): Promise<ClusterVersion | undefined> {
  const client = new ClusterVersionClient(o.api);
  const retryMs = o.retryMs ?? 3000;
  const logEveryMs = o.logEveryMs ?? 60_000;
  let said: { why: string; at: number } | undefined;
  while (!o.signal.aborted) {
    let why: string | undefined;
    try {
      const cv = await client.get();
      why = notReady(cv);
      if (!why) {
        if (said) o.log.info('ClusterVersion ready: starting');
        return cv;
      }
    } catch (err) {
      // A kind not served yet (its CRD being made) answers 404 as a missing object does.
      why = isNotFound(err)
        ? 'No cluster version object, waiting for one'
        : `the ClusterVersion cannot be read, trying again: ${apiMessage(err)}`;
    }
    const now = o.clock.now();
    if (!said || said.why !== why || now - said.at >= logEveryMs) {
      o.log.info({ retryInSeconds: retryMs / 1000 }, why);
      said = { why, at: now };
    }
    await o.clock.sleep(retryMs, o.signal);
  }
  return undefined;
}
