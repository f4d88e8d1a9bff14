// The ClusterVersion object as the agent reads and writes it. Two loops write its status (the update
// poll and the update executor), each only its own fields: every write re-reads the object, applies
// a change to the fresh status, and retries on a conflict, so neither loses the other's work.
import * as k8s from '@kubernetes/client-node';
import { canonicalJson } from '../canonicalJson.js';
import type { Risk } from '../graph/model.js';
import type { Release } from './cincinnati.js';
import { keepTransition, type Condition } from './status.js';

export const CV = { group: 'config.openshift.io', version: 'v1', plural: 'clusterversions', name: 'version' };

export interface HistoryEntry {
  state: 'Partial' | 'Completed';
  startedTime: string;
  completionTime: string | null;
  version: string;
  image: string;
  verified: boolean;
  acceptedRisks?: string;
}

export interface DesiredUpdate {
  version?: string;
  image?: string;
  force?: boolean;
  architecture?: string;
  acceptRisks?: Array<{ name: string }>;
}

export interface ClusterVersionStatus {
  desired?: Release;
  history?: HistoryEntry[];
  availableUpdates?: Release[] | null;
  conditionalUpdates?: Array<{ release: Release; risks: Risk[]; conditions: Condition[] }>;
  conditions?: Condition[];
  observedGeneration?: number;
  [key: string]: unknown;
}

export interface ClusterVersion {
  metadata: { resourceVersion?: string; generation?: number };
  spec: { clusterID: string; channel?: string; upstream?: string; desiredUpdate?: DesiredUpdate; signatureStores?: Array<{ url: string }> };
  status: ClusterVersionStatus;
}

export class ClusterVersionClient {
  private readonly custom: k8s.CustomObjectsApi;

  constructor(kc: k8s.KubeConfig) {
    this.custom = kc.makeApiClient(k8s.CustomObjectsApi);
  }

  async get(): Promise<ClusterVersion> {
    return (await this.custom.getClusterCustomObject(CV)) as ClusterVersion;
  }

  /**
   * Writes `change(fresh status)` through the status subresource; nothing when it changes nothing.
   * Returns whether it wrote.
   */
  async writeStatus(change: (status: ClusterVersionStatus, cv: ClusterVersion) => ClusterVersionStatus): Promise<boolean> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const cv = await this.get();
      const status = change(structuredClone(cv.status ?? {}), cv);
      if (canonicalJson(status) === canonicalJson(cv.status ?? {})) return false;
      try {
        await this.custom.replaceClusterCustomObjectStatus({ ...CV, body: { ...cv, status } });
        return true;
      } catch (err) {
        if ((err as { code?: number }).code !== 409) throw err;
      }
    }
    throw new Error('ClusterVersion status kept changing under the agent: 8 conflicts in a row');
  }
}

/** Sets a condition, keeping lastTransitionTime while its status holds. */
export function setCondition(conditions: Condition[] | undefined, next: Condition): Condition[] {
  const list = conditions ?? [];
  const previous = list.find((c) => c.type === next.type);
  const kept = keepTransition(next, previous);
  return previous ? list.map((c) => (c.type === next.type ? kept : c)) : [...list, kept];
}

const GOARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', s390x: 's390x', ppc64: 'ppc64le' };

/** The control plane's architecture; the agent's own when nodes cannot be read (a hosted control plane), as the CVO does. */
export async function controlPlaneArch(core: k8s.CoreV1Api): Promise<string> {
  try {
    const nodes = await core.listNode({ labelSelector: 'node-role.kubernetes.io/master' });
    const arch = nodes.items[0]?.status?.nodeInfo?.architecture ?? nodes.items[0]?.metadata?.labels?.['kubernetes.io/arch'];
    if (arch) return arch;
  } catch {
    // not readable
  }
  return GOARCH[process.arch] ?? process.arch;
}

export function removeCondition(conditions: Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/**
 * Change notices for the ClusterVersion, from a watch: a loop that waits on `next()` wakes as soon as
 * the object changes instead of at its next poll. The watch restarts when the server ends it; while
 * it is down, `next()` simply never resolves and the loops fall back to their own timers.
 */
export class ClusterVersionWatch {
  private waiters: Array<(cv: ClusterVersion | undefined) => void> = [];
  private controller: AbortController | undefined;
  private closed = false;

  constructor(private readonly kc: k8s.KubeConfig) {}

  start(): this {
    void this.connect();
    return this;
  }

  /** Resolves at the next change, with the object as it now is (undefined when the watch stops or reports an error). */
  next(): Promise<ClusterVersion | undefined> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.closed = true;
    this.controller?.abort();
    this.notify(undefined);
  }

  private notify(cv: ClusterVersion | undefined): void {
    const waiting = this.waiters;
    this.waiters = [];
    waiting.forEach((w) => w(cv));
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const again = (): void => void setTimeout(() => void this.connect(), 5_000).unref();
    try {
      this.controller = await new k8s.Watch(this.kc).watch(
        `/apis/${CV.group}/${CV.version}/${CV.plural}`,
        { fieldSelector: `metadata.name=${CV.name}` },
        // An ERROR event carries a Status, not the object: say only that something happened.
        (phase: string, object: ClusterVersion) => this.notify(phase !== 'ERROR' && object?.spec ? object : undefined),
        () => again(),
      );
    } catch {
      again();
    }
  }
}
