// The agent's first step: a ClusterVersion to work on. Started with a cluster that is still being made,
// the agent finds no ClusterVersion kind, or no object yet, or one whose status the cluster has not written
// (on a real API server, a create drops status: it comes in a second write). It waits, asking every 3 s
// as the cluster-version-operator does ("No cluster version object, waiting for one" in LoadInitialPayload,
// pkg/cvo/cvo.go, while availableUpdatesSync does nothing without it), and says why in its log at most
// once a minute for the same reason (a warning when the reason is not the object's absence).
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { ClusterApi } from '../cluster/api.js';
import { apiMessage, apiStatus, isNotFound } from '../cluster/apiError.js';
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
  let said: { kind: string; at: number } | undefined;
  while (!o.signal.aborted) {
    // What is wrong, and a kind of it that does not change with the words of each answer (a rate-limited line).
    let why: { kind: string; text: string; level: 'info' | 'warn' };
    try {
      const cv = await client.get();
      const missing = notReady(cv);
      if (!missing) {
        if (said) o.log.info('ClusterVersion ready: starting');
        return cv;
      }
      why = { kind: missing, text: missing, level: 'info' };
    } catch (err) {
      // A kind not served yet (its CRD being made) answers 404 as a missing object does; anything else
      // (refused credentials, an unreachable server) is worth a warning.
      why = isNotFound(err)
        ? { kind: '404', text: 'No cluster version object, waiting for one', level: 'info' }
        : {
            kind: `error ${apiStatus(err) ?? 'network'}`,
            text: `the ClusterVersion cannot be read, trying again: ${apiMessage(err)}`,
            level: 'warn',
          };
    }
    const now = o.clock.now();
    if (!said || said.kind !== why.kind || now - said.at >= logEveryMs) {
      o.log[why.level]({ retryInSeconds: retryMs / 1000 }, why.text);
      said = { kind: why.kind, at: now };
    }
    await o.clock.sleep(retryMs, o.signal);
  }
  return undefined;
}
