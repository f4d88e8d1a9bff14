// One poll of the update lists: read the ClusterVersion through the Kubernetes API, ask the update service
// for the graph, evaluate conditional risks, and write availableUpdates, conditionalUpdates and the
// RetrievedUpdates condition through the status subresource — only when something changed. A failed poll
// keeps or clears the lists as the cluster-version-operator does (pkg/cvo/availableupdates.go): only a
// failure of the update service's answer (RemoteFailed, ResponseFailed, ResponseInvalid) keeps them, and
// only while the upstream, channel and architecture are those they were retrieved for and they were last
// retrieved (or those last changed) less than 24 hours ago. Anything else — the current version missing
// from the new channel (VersionNotFound), no channel, a first poll after a start — clears them: updates
// listed for another channel must not be offered as recommended under this one.
import { kubeTime, systemClock, type Clock } from '../clock.js';
import { ClusterApiError, type ClusterApi } from '../cluster/api.js';
import { DroppedFieldsError } from '../cluster/dropped.js';
import { LABEL } from '../graph/model.js';
import { acceptedRiskNames, acceptRisksOn, type AcceptRisksFeature } from './acceptRisks.js';
import { controlPlaneArch } from './architecture.js';
import { notReady } from './awaitClusterVersion.js';
import {
  fetchGraph,
  RetrieveError,
  updatesFrom,
  type ConditionalUpdate,
  type GraphResponse,
  type TransportOptions,
} from './cincinnati.js';
import { ClusterVersionClient, type ClusterVersion, type RiskStatus } from './clusterVersion.js';
import { keepTransition, setCondition, type Condition } from './conditions.js';
import { appliesCondition, recommended, risksByName, updateStatus } from './recommendations.js';
import type { Exposure, RiskEvaluator } from './risks.js';
import { mergeRisks } from './riskSources/merge.js';
import { collectRisks, type RiskSource, type SourceRisk } from './riskSources/source.js';
import { clusterTransport } from './transport.js';

export interface PollerOptions {
  api: ClusterApi;
  evaluator: RiskEvaluator;
  /** Default `auto`: on when the FeatureGate `cluster` enables ClusterUpdateAcceptRisks for the running version. */
  acceptRisks?: AcceptRisksFeature;
  /** Transport settings given by flags; the cluster's CA bundle and proxy fill the rest. */
  transport?: TransportOptions;
  defaultUpstream?: string;
  /** Risk sources besides the update service (alerts, Upgradeable=False, admin-acks), merged with the accept-risks feature on. */
  riskSources?: readonly RiskSource[];
  clock?: Clock;
}

/** A fetch's failures that say nothing about the lists themselves: the previous ones may stand. */
const ANSWER_FAILURES: ReadonlySet<string> = new Set(['RemoteFailed', 'ResponseFailed', 'ResponseInvalid']);
/** Lists kept through answer failures are cleared once they are older than this (the CVO's maximumCacheInterval). */
export const MAX_CACHE_MS = 24 * 3600_000;

/** What the lists in status were last retrieved for, and when that last succeeded or changed. */
interface Retrieval {
  key: string;
  syncedAt: number;
}

export interface PollResult {
  retrieved: Condition;
  available: number;
  conditional: number;
  recommendedConditional: number;
  written: boolean;
  /** Risks of this poll left Unknown by the PromQL rate limit, until a poll soon after evaluates them. */
  queuedEvaluations: number;
  /** What the risk sources could not answer or merge (invalid names, divergent definitions, failures). */
  riskProblems: string[];
}

/** How long a fetched graph serves the polls that come back for queued evaluations (the CVO's minimum check interval). */
const REUSE_GRAPH_MS = 60_000;

/** A write the API server refused for what it holds, not for the moment: retrying the same write cannot help. */
function refusedWrite(err: unknown): boolean {
  if (err instanceof DroppedFieldsError) return true;
  return err instanceof ClusterApiError && [400, 413, 422].includes(err.status);
}

/** A condition without an empty reason or message: the CVO leaves them out (RetrievedUpdates=True has neither). */
function withoutEmptyWords(c: Condition): Condition {
  const { reason, message, ...rest } = c;
  return { ...rest, ...(reason && { reason }), ...(message && { message }) } as Condition;
}

export class UpdatesPoller {
  private readonly cv: ClusterVersionClient;
  private readonly clock: Clock;
  /** Undefined until the first poll of this process, as the CVO knows nothing of earlier retrievals at start. */
  private last: Retrieval | undefined;
  /** The last graph fetched, kept while evaluations it asked for wait their turn. */
  private fetched: { key: string; at: number; graph: GraphResponse; queued: boolean } | undefined;

  constructor(private readonly o: PollerOptions) {
    this.cv = new ClusterVersionClient(o.api);
    this.clock = o.clock ?? systemClock;
  }

  clusterVersion(): Promise<ClusterVersion> {
    return this.cv.get();
  }

  /** `multi` when the cluster runs or asks for a multi release; else the control plane's architecture. */
  private async arch(cv: ClusterVersion): Promise<string> {
    if (cv.status.desired?.architecture === 'Multi' || cv.spec.desiredUpdate?.architecture === 'Multi') return 'multi';
    return controlPlaneArch(this.o.api);
  }

  /** One poll: fetch, evaluate, write. A failure keeps the previous updates and sets the condition False. */
  async poll(): Promise<PollResult> {
    const now = this.clock.now();
    const at = kubeTime(now);
    const cv = await this.clusterVersion();
    // Made again and not yet whole: nothing is written to it until the cluster has (the loop tries again).
    const incomplete = notReady(cv);
    if (incomplete) throw new Error(incomplete);
    let computed: ReturnType<typeof updateStatus> | undefined;
    let queuedEvaluations = 0;
    const riskProblems: string[] = [];
    let channels: string[] | undefined;
    let retrieved: Condition = {
      type: 'RetrievedUpdates',
      status: 'True',
      lastTransitionTime: at,
      reason: '',
      message: '',
    };
    const arch = await this.arch(cv);
    const transport = await clusterTransport(this.o.api, this.o.transport);
    const key = JSON.stringify([cv.spec.upstream || this.o.defaultUpstream || '', cv.spec.channel ?? '', arch]);
    try {
      const current = cv.status.desired?.version;
      // A poll that comes back for queued evaluations reuses the graph just fetched, as the CVO does.
      const fetchKey = `${key}${current}`;
      const reuse = this.fetched?.key === fetchKey && this.fetched.queued && now - this.fetched.at < REUSE_GRAPH_MS;
      const graph = reuse
        ? this.fetched!.graph
        : await fetchGraph(
            {
              upstream: cv.spec.upstream,
              defaultUpstream: this.o.defaultUpstream,
              clusterID: cv.spec.clusterID,
              arch,
              channel: cv.spec.channel,
              version: current,
            },
            transport,
          );
      if (!reuse) this.fetched = { key: fetchKey, at: now, graph, queued: false };
      const migrate = cv.spec.desiredUpdate?.architecture === 'Multi' && cv.status.desired?.architecture !== 'Multi';
      let updates;
      try {
        updates = updatesFrom(graph, current!, migrate);
      } catch (err) {
        throw new RetrieveError('ResponseInvalid', `Unable to retrieve available updates: ${(err as Error).message}`);
      }
      const feature = await acceptRisksOn(this.o.api, cv, this.o.acceptRisks ?? 'auto');
      // As oc says of the CVO: with ClusterUpdateAcceptRisks on, it evaluates alerts and its other risk sources itself.
      if (feature && this.o.riskSources?.length) {
        const versions = [...updates.available, ...updates.conditional.map((c) => c.release)].map((r) => r.version);
        const found = await collectRisks(this.o.riskSources, versions, cv);
        riskProblems.push(...found.problems);
        if (found.versions.size > 0) {
          const merged = mergeRisks(updates.available, updates.conditional, found.risks, found.versions);
          riskProblems.push(...merged.problems);
          updates = { ...updates, available: merged.available, conditional: merged.conditional };
        }
      }
      const evaluated = await this.evaluate(updates.conditional, cv, at, feature);
      computed = updateStatus(updates.available, evaluated.conditional, feature ? evaluated.risks : undefined);
      queuedEvaluations = evaluated.queued;
      this.fetched!.queued = queuedEvaluations > 0;
      const node = graph.nodes.find((n) => n.version === current);
      channels = (node?.metadata[LABEL.channels] ?? '').split(',').filter(Boolean).sort();
    } catch (err) {
      if (!(err instanceof RetrieveError)) throw err;
      retrieved = {
        type: 'RetrievedUpdates',
        status: 'False',
        lastTransitionTime: at,
        reason: err.reason,
        message: err.message,
      };
      if (!this.keepsLists(err.reason, key, now)) computed = updateStatus([], []);
    }
    // As the CVO's LastSyncOrConfigChange: moved by a success and by a change of what is asked for.
    if (retrieved.status === 'True' || this.last?.key !== key) this.last = { key, syncedAt: now };
    let written: boolean;
    try {
      written = await this.write(retrieved, computed, channels, cv.status.desired?.version);
    } catch (err) {
      // The API server refused the lists (too large, invalid, pruned): the lists in status are stale, so the
      // condition must not keep saying they were retrieved. Anything else (a conflict storm, the server
      // away) is the loop's to retry.
      if (!refusedWrite(err)) throw err;
      retrieved = {
        type: 'RetrievedUpdates',
        status: 'False',
        lastTransitionTime: at,
        reason: 'StatusWriteRefused',
        message: `Unable to record the available updates: ${(err as Error).message}`,
      };
      await this.write(retrieved, undefined, undefined, cv.status.desired?.version);
      written = true;
      computed = undefined;
    }
    const status = computed ?? {
      availableUpdates: cv.status.availableUpdates ?? null,
      conditionalUpdates: cv.status.conditionalUpdates ?? [],
    };
    return {
      retrieved,
      available: status.availableUpdates?.length ?? 0,
      conditional: status.conditionalUpdates.length,
      recommendedConditional: status.conditionalUpdates.filter((c) =>
        c.conditions.some((k) => k.type === 'Recommended' && k.status === 'True'),
      ).length,
      written,
      queuedEvaluations,
      riskProblems,
    };
  }

  /** Whether a failed fetch leaves the lists in status as they are. */
  private keepsLists(reason: string, key: string, now: number): boolean {
    return ANSWER_FAILURES.has(reason) && this.last?.key === key && now - this.last.syncedAt < MAX_CACHE_MS;
  }

  /**
   * As the CVO evaluates: each risk once under its name, with the definition of the highest target that
   * carries it (its Applies condition); then each update's Recommended condition over its own risks, in
   * the graph's order, quoting their own messages. Accepted risks count only with the feature on.
   */
  private async evaluate(
    conditional: ConditionalUpdate[],
    cv: ClusterVersion,
    at: string,
    feature: boolean,
  ): Promise<{
    conditional: Array<ConditionalUpdate & { conditions: Condition[] }>;
    risks: RiskStatus[];
    /** How many risks wait for the rate limit to evaluate them. */
    queued: number;
  }> {
    const before = new Map((cv.status.conditionalUpdateRisks ?? []).map((r) => [r.name, r.conditions]));
    const risks: RiskStatus[] = [];
    const exposures = new Map<string, Exposure>();
    let queued = 0;
    for (const risk of risksByName(conditional) as SourceRisk[]) {
      // A source that knows the exposure (a firing alert) gives its Applies condition; the others are evaluated.
      const exposure: Exposure = risk.applies ? { applies: true } : await this.o.evaluator.evaluate(risk);
      if ('queued' in exposure) queued += 1;
      exposures.set(risk.name, exposure);
      const { applies, ...definition } = risk;
      const condition =
        applies ??
        keepTransition(
          appliesCondition(risk, exposure, at),
          before.get(risk.name)?.find((k) => k.type === 'Applies'),
        );
      risks.push({ ...definition, conditions: [condition] });
    }
    const accepted = feature ? acceptedRiskNames(cv) : undefined;
    const previous = new Map(
      (cv.status.conditionalUpdates ?? []).map((c) => [
        c.release.version,
        c.conditions.find((k) => k.type === 'Recommended'),
      ]),
    );
    return {
      conditional: conditional.map((c) => ({
        release: c.release,
        // The definitions alone: what a source knew of the exposure is in the risk's Applies condition.
        risks: (c.risks as SourceRisk[]).map(({ applies: _known, ...definition }) => definition),
        conditions: [keepTransition(recommended(c.risks, exposures, accepted, at), previous.get(c.release.version))],
      })),
      risks,
      queued,
    };
  }

  /** Writes the poll's fields through the status subresource; nothing when nothing changed. */
  private write(
    retrieved: Condition,
    computed: ReturnType<typeof updateStatus> | undefined,
    channels: string[] | undefined,
    version: string | undefined,
  ): Promise<boolean> {
    return this.cv.writeStatus((status, fresh) => {
      // An update was accepted while this poll ran: its results are for the old version. The version
      // change makes the next poll come at once.
      if (status.desired?.version !== version) return status;
      const next = {
        ...status,
        // The generation of the spec this sync read, as the CVO records it on every sync.
        ...(fresh.metadata.generation !== undefined && { observedGeneration: fresh.metadata.generation }),
        conditions: setCondition(status.conditions, withoutEmptyWords(retrieved)),
        ...(computed && {
          availableUpdates: computed.availableUpdates,
          conditionalUpdates: computed.conditionalUpdates,
          conditionalUpdateRisks: computed.conditionalUpdateRisks,
        }),
        // The channels the current release is in: what `adm upgrade` offers as available channels.
        ...(channels && status.desired && { desired: { ...status.desired, channels } }),
      };
      if (!('availableUpdates' in next)) next.availableUpdates = null; // the key is always present
      if (next.conditionalUpdateRisks === undefined) delete next.conditionalUpdateRisks; // the feature is off
      return next;
    });
  }
}
