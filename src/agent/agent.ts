// The agent: reads the ClusterVersion through the Kubernetes API, asks the update service for the
// graph, evaluates conditional risks, and writes availableUpdates, conditionalUpdates and the
// RetrievedUpdates condition through the status subresource — only when something changed.
import * as k8s from '@kubernetes/client-node';
import type { Risk } from '../graph/model.js';
import { fetchGraph, RetrieveError, updatesFrom, type ConditionalUpdate, type TransportOptions } from './cincinnati.js';
import { RiskEvaluator, type Exposure } from './risks.js';
import { keepTransition, recommended, updateStatus, type Condition } from './status.js';
import { kubeTime } from '../clock.js';
import { ClusterVersionClient, controlPlaneArch, setCondition, type ClusterVersion } from './clusterVersion.js';


export interface AgentOptions {
  kc: k8s.KubeConfig;
  evaluator: RiskEvaluator;
  transport?: TransportOptions;
  defaultUpstream?: string;
  now?: () => Date;
}

export interface PollResult {
  retrieved: Condition;
  available: number;
  conditional: number;
  recommendedConditional: number;
  written: boolean;
}

export class Agent {
  private readonly custom: k8s.CustomObjectsApi;
  private readonly core: k8s.CoreV1Api;
  private readonly cv: ClusterVersionClient;
  private readonly now: () => Date;

  constructor(private readonly o: AgentOptions) {
    this.custom = o.kc.makeApiClient(k8s.CustomObjectsApi);
    this.core = o.kc.makeApiClient(k8s.CoreV1Api);
    this.cv = new ClusterVersionClient(o.kc);
    this.now = o.now ?? (() => new Date());
  }

  clusterVersion(): Promise<ClusterVersion> {
    return this.cv.get();
  }

  /** `multi` when the cluster runs or asks for a multi release; else the control plane's architecture. */
  private async arch(cv: ClusterVersion): Promise<string> {
    if (cv.status.desired?.architecture === 'Multi' || cv.spec.desiredUpdate?.architecture === 'Multi') return 'multi';
    return controlPlaneArch(this.core);
  }

  /**
   * The CA bundle (--ca-file, else the cluster's ConfigMap openshift-config-managed/trusted-ca-bundle)
   * and the cluster-wide proxy (the Proxy object `cluster`, else HTTPS_PROXY / NO_PROXY).
   */
  private async transport(): Promise<TransportOptions> {
    const t: TransportOptions = { ...this.o.transport };
    if (!t.ca) {
      try {
        const cm = await this.core.readNamespacedConfigMap({ namespace: 'openshift-config-managed', name: 'trusted-ca-bundle' });
        if (cm.data?.['ca-bundle.crt']) t.ca = cm.data['ca-bundle.crt'];
      } catch {
        // no bundle: the system's CAs
      }
    }
    try {
      const proxy = (await this.custom.getClusterCustomObject({ group: 'config.openshift.io', version: 'v1', plural: 'proxies', name: 'cluster' })) as { status?: { httpsProxy?: string; noProxy?: string } };
      if (proxy.status?.httpsProxy) return { ...t, proxy: proxy.status.httpsProxy, noProxy: proxy.status.noProxy };
    } catch {
      // no Proxy object: the environment decides
    }
    const env = process.env.HTTPS_PROXY ?? process.env.https_proxy;
    return env ? { ...t, proxy: env, noProxy: process.env.NO_PROXY ?? process.env.no_proxy } : t;
  }

  /** One poll: fetch, evaluate, write. A failure keeps the previous updates and sets the condition False. */
  async poll(): Promise<PollResult> {
    const at = kubeTime(this.now().getTime());
    const cv = await this.clusterVersion();
    let computed: ReturnType<typeof updateStatus> | undefined;
    let channels: string[] | undefined;
    let retrieved: Condition = { type: 'RetrievedUpdates', status: 'True', lastTransitionTime: at, reason: '', message: '' };
    try {
      const current = cv.status.desired?.version;
      const graph = await fetchGraph(
        { upstream: cv.spec.upstream, defaultUpstream: this.o.defaultUpstream, clusterID: cv.spec.clusterID, arch: await this.arch(cv), channel: cv.spec.channel, version: current },
        await this.transport(),
      );
      const migrate = cv.spec.desiredUpdate?.architecture === 'Multi' && cv.status.desired?.architecture !== 'Multi';
      let updates;
      try {
        updates = updatesFrom(graph, current!, migrate);
      } catch (err) {
        throw new RetrieveError('ResponseInvalid', `Unable to retrieve available updates: ${(err as Error).message}`);
      }
      computed = updateStatus(updates.available, await this.evaluate(updates.conditional, cv, at));
      const node = graph.nodes.find((n) => n.version === current);
      channels = (node?.metadata['io.openshift.upgrades.graph.release.channels'] ?? '').split(',').filter(Boolean).sort();
    } catch (err) {
      if (!(err instanceof RetrieveError)) throw err;
      retrieved = { type: 'RetrievedUpdates', status: 'False', lastTransitionTime: at, reason: err.reason, message: err.message };
    }
    const written = await this.write(retrieved, computed, channels, cv.status.desired?.version);
    const status = computed ?? { availableUpdates: cv.status.availableUpdates ?? null, conditionalUpdates: cv.status.conditionalUpdates ?? [] };
    return {
      retrieved,
      available: status.availableUpdates?.length ?? 0,
      conditional: status.conditionalUpdates.length,
      recommendedConditional: status.conditionalUpdates.filter((c) => c.conditions.some((k) => k.type === 'Recommended' && k.status === 'True')).length,
      written,
    };
  }

  /** Each risk once per name, with the definition of the highest target carrying it. */
  private async evaluate(conditional: ConditionalUpdate[], cv: ClusterVersion, at: string): Promise<Array<ConditionalUpdate & { conditions: Condition[] }>> {
    const definitions = new Map<string, Risk>();
    for (const c of conditional) for (const r of c.risks) if (!definitions.has(r.name)) definitions.set(r.name, r);
    const exposures = new Map<string, Exposure>();
    for (const [name, risk] of definitions) exposures.set(name, await this.o.evaluator.evaluate(risk));
    const accepted = new Set((cv.spec.desiredUpdate?.acceptRisks ?? []).map((r) => r.name));
    const previous = new Map((cv.status.conditionalUpdates ?? []).map((c) => [c.release.version, c.conditions.find((k) => k.type === 'Recommended')]));
    return conditional.map((c) => ({
      ...c,
      // The definition evaluated (from the highest target) is also the one the condition quotes.
      conditions: [keepTransition(recommended(c.risks.map((risk) => ({ risk: definitions.get(risk.name)!, exposure: exposures.get(risk.name)! })), accepted, at), previous.get(c.release.version))],
    }));
  }

  /** Writes the poll's fields through the status subresource; nothing when nothing changed. */
  private write(retrieved: Condition, computed: ReturnType<typeof updateStatus> | undefined, channels: string[] | undefined, version: string | undefined): Promise<boolean> {
    return this.cv.writeStatus((status) => {
      // An update was accepted while this poll ran: its results are for the old version. The version
      // change makes the next poll come at once.
      if (status.desired?.version !== version) return status;
      const next = {
        ...status,
        conditions: setCondition(status.conditions, retrieved),
        ...(computed && { availableUpdates: computed.availableUpdates, conditionalUpdates: computed.conditionalUpdates }),
        // The channels the current release is in: what `adm upgrade` offers as available channels.
        ...(channels && status.desired && { desired: { ...status.desired, channels } }),
      };
      if (!('availableUpdates' in next)) next.availableUpdates = null; // the key is always present
      return next;
    });
  }

  /** The spec fields whose change triggers a fetch at once. */
  async trigger(): Promise<string> {
    return triggerOf(await this.clusterVersion());
  }
}

/** The fields of a ClusterVersion whose change makes the agent fetch the graph again at once. */
export const triggerOf = (cv: ClusterVersion): string =>
  JSON.stringify([cv.spec.channel, cv.spec.upstream, cv.spec.desiredUpdate?.architecture ?? '', cv.status.desired?.version, cv.status.desired?.architecture ?? '']);
