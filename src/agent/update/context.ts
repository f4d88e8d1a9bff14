// What every step of the update executor works with: the cluster's API, the clock, the log, the payload
// store and the signature verifier, and the shutdown signal that ends every wait.
import type { Logger } from 'pino';
import { kubeTime, type Clock } from '../../clock.js';
import type { AcceptRisksFeature } from '../acceptRisks.js';
import type { ClusterApi, KubeObject, Resource } from '../../cluster/api.js';
import { unlessNotFound } from '../../cluster/apiError.js';
import { RESOURCES, type ConfigMap } from '../../cluster/resources.js';
import type { StorePullOptions } from '../../payload/pull.js';
import type { PayloadStore } from '../../payload/store.js';
import { ClusterVersionClient, type ClusterVersion } from '../clusterVersion.js';
import { ADMIN_ACKS, ADMIN_GATES, adminAckHold, type Hold } from './adminAcks.js';
import type { ClusterOperatorObject } from './gate.js';
import type { ReleaseVerifier } from './verify.js';

/** How a payload reaches the payload store (retrieval.ts). */
export type PayloadRetrieval =
  /** A Job writes the payload to the hostPath /etc/cvo/updatepayloads; `nodeName` pins it to the agent's node. */
  | { kind: 'job'; nodeName?: string }
  /** The agent pulls the release image itself, with these registry settings. */
  | { kind: 'pull'; registry: StorePullOptions };

/** What names an object of any kind. */
export type ObjectRef = { apiVersion?: string; kind?: string; metadata: { name: string; namespace?: string } };
/** An object as the API returns it, or a manifest document on its way to the API. */
export type ApiObject = KubeObject & { status?: unknown };

export interface OperatorOptions {
  api: ClusterApi;
  clock: Clock;
  payloads: PayloadStore;
  /** How a payload reaches the store: by the cluster's Job, or pulled by the agent. */
  retrieval: PayloadRetrieval;
  verifier: ReleaseVerifier;
  /** Components applied at once within a runlevel. */
  workers: number;
  log: Logger;
  /** Aborted on shutdown: every wait ends at once. */
  signal?: AbortSignal;
  /** The accept-risks feature: a conditional update is taken only once its applying risks are accepted. */
  acceptRisks?: AcceptRisksFeature;
}

export class OperatorContext {
  readonly api: ClusterApi;
  readonly cv: ClusterVersionClient;
  readonly clock: Clock;
  readonly log: Logger;
  readonly payloads: PayloadStore;
  readonly retrieval: PayloadRetrieval;
  readonly verifier: ReleaseVerifier;
  readonly workers: number;
  readonly signal: AbortSignal | undefined;
  readonly acceptRisks: AcceptRisksFeature;

  constructor(o: OperatorOptions) {
    this.api = o.api;
    this.cv = new ClusterVersionClient(o.api);
    this.clock = o.clock;
    this.log = o.log;
    this.payloads = o.payloads;
    this.retrieval = o.retrieval;
    this.verifier = o.verifier;
    this.workers = o.workers;
    this.signal = o.signal;
    this.acceptRisks = o.acceptRisks ?? 'auto';
  }

  /** Now, as Kubernetes writes times. */
  at(): string {
    return kubeTime(this.clock.now());
  }

  pause(ms: number): Promise<void> {
    return this.clock.sleep(ms, this.signal);
  }

  get stopped(): boolean {
    return this.signal?.aborted ?? false;
  }

  /** The resource that serves an object's kind (a payload may name any kind). */
  resourceOf(ref: ObjectRef): Promise<Resource> {
    return this.api.resourceFor(ref.apiVersion ?? '', ref.kind ?? '');
  }

  /** An object of any kind, or undefined when it does not exist. */
  async read(ref: ObjectRef): Promise<ApiObject | undefined> {
    return unlessNotFound(this.api.get<ApiObject>(await this.resourceOf(ref), ref.metadata));
  }

  /**
   * What the admin-gates and admin-acks ConfigMaps hold minor updates back for. The gates asked are
   * those of the version the cluster last completed, as the CVO reads them; none before it completed one.
   */
  async adminAck(cv: ClusterVersion): Promise<Hold | undefined> {
    const current = cv.status.history?.find((h) => h.state === 'Completed')?.version;
    if (!current) return undefined;
    const data = async (ref: { namespace: string; name: string }): Promise<Record<string, string> | undefined> => {
      const cm = await unlessNotFound(this.api.get<ConfigMap>(RESOURCES.configMaps, ref));
      return cm && (cm.data ?? {});
    };
    const [gates, acks] = await Promise.all([data(ADMIN_GATES), data(ADMIN_ACKS)]);
    return adminAckHold(current, gates, acks);
  }

  async operators(): Promise<ClusterOperatorObject[]> {
    return (await this.api.list<ClusterOperatorObject>(RESOURCES.clusterOperators)).items;
  }
}
