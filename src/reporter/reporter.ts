// The cluster side of fleet reports (`cincy report`): reads the cluster's ClusterVersion and its
// ClusterOperators (get and list only: read-only credentials suffice) and sends them to the update
// service when what the service keeps of them changed, and at least every `interval` otherwise, so a
// cluster that is still there is heard from even when nothing changes. A read or a send that fails is
// logged and tried again at the next check; nothing is lost but time, as the next report carries the
// whole state again. A failure makes the next try wait longer (doubling from the check interval up to
// ten minutes), so a refused token or a server down is not asked every few seconds; a refusal that says
// when to come back (429 with Retry-After, as the service's per-cluster limit answers) is not tried before.
import { createHash } from 'node:crypto';
import type { ClusterApi, KubeObject } from '../cluster/api.js';
import { RESOURCES } from '../cluster/resources.js';
import type { Clock } from '../clock.js';

/** The longest wait between two tries after failures (ms), and the longest Retry-After heeded. */
export const MAX_BACKOFF_MS = 10 * 60_000;

/** A send's failure that says when to try again (an HTTP Retry-After in seconds). */
export interface RetryLater {
  retryAfterSeconds?: number;
}

export interface ReportBody {
  clusterID: string;
  clusterVersion: KubeObject;
  clusterOperators: KubeObject[];
}

export interface ReporterOptions {
  api: ClusterApi;
  /** Sends a report, given up when `signal` aborts; resolves with a line saying what the service made of it, rejects with why it failed. */
  send: (body: ReportBody, signal: AbortSignal) => Promise<string>;
  clock: Clock;
  /** How often the cluster is read (ms). */
  checkMs: number;
  /** The longest between two reports when nothing changes (ms). */
  intervalMs: number;
  log: (line: string) => void;
  signal: AbortSignal;
  /** Report once and return whether it was taken. */
  once?: boolean;
  /** Where in the second half of a backoff the next try comes, in [0, 1) (default Math.random). */
  random?: () => number;
}

/** Reads the cluster and reports until `signal` aborts (or once); the number of reports taken. */
export async function runReporter(o: ReporterOptions): Promise<number> {
  let lastDigest: string | undefined;
  let lastSent = -Infinity;
  let taken = 0;
  let failures = 0;
  let retryAfterMs = 0;
  while (!o.signal.aborted) {
    retryAfterMs = 0;
    try {
      const body = await readCluster(o.api);
      const digest = digestOf(body);
      if (digest !== lastDigest || o.clock.now() - lastSent >= o.intervalMs) {
        o.log(await o.send(body, o.signal));
        lastDigest = digest;
        lastSent = o.clock.now();
        taken += 1;
      }
      failures = 0;
    } catch (err) {
      if (o.signal.aborted) break;
      failures += 1;
      retryAfterMs = Math.min(MAX_BACKOFF_MS, ((err as RetryLater).retryAfterSeconds ?? 0) * 1000);
      o.log(`report failed: ${(err as Error).message}`);
      if (o.once) return taken;
    }
    if (o.once) return taken;
    // After failures, the next try waits longer each time (a server down, a token refused), up to
    // MAX_BACKOFF_MS, at a random point of its second half: a fleet whose service was down does not all
    // come back at one moment.
    const backoff = Math.min(o.checkMs * 2 ** failures, Math.max(o.checkMs, MAX_BACKOFF_MS));
    const wait = failures ? backoff / 2 + (o.random ?? Math.random)() * (backoff / 2) : o.checkMs;
    await o.clock.sleep(Math.max(wait, retryAfterMs), o.signal);
  }
  return taken;
}

/** The cluster's report: its ClusterVersion `version` and every ClusterOperator, as the API server returns them. */
export async function readCluster(api: ClusterApi): Promise<ReportBody> {
  const cv = await api.get(RESOURCES.clusterVersions, { name: 'version' });
  const cos = await api.list(RESOURCES.clusterOperators);
  const clusterID = (cv as { spec?: { clusterID?: unknown } }).spec?.clusterID;
  if (typeof clusterID !== 'string' || !clusterID)
    throw new Error('the ClusterVersion version has no spec.clusterID to report under');
  return { clusterID, clusterVersion: slim(cv), clusterOperators: cos.items.map(slim) };
}

/** An object without its managedFields: the API server's bookkeeping of who wrote what, often most of its size. */
function slim(o: KubeObject): KubeObject {
  const metadata = { ...o.metadata };
  delete metadata.managedFields;
  return { ...o, metadata };
}

/**
 * What the service keeps of a report, hashed: a change here is worth a report now. Times of
 * heartbeats and resource versions are left out, so a cluster at rest reports only every interval.
 */
function digestOf(body: ReportBody): string {
  const status = (o: KubeObject): Record<string, unknown> => (o.status ?? {}) as Record<string, unknown>;
  const conditions = (o: KubeObject): unknown =>
    ((status(o).conditions ?? []) as Array<Record<string, unknown>>).map((c) => [
      c.type,
      c.status,
      c.reason,
      c.message,
    ]);
  const cv = body.clusterVersion;
  const kept = {
    channel: (cv.spec as { channel?: string } | undefined)?.channel,
    desired: status(cv).desired,
    history: status(cv).history,
    conditions: conditions(cv),
    operators: body.clusterOperators.map((co) => [co.metadata.name, conditions(co)]),
  };
  return createHash('sha256').update(JSON.stringify(kept)).digest('hex');
}
