// The Cincinnati client of the agent, as the cluster-version-operator does it: the request, the
// RetrievedUpdates failure reasons in their order, response validation, and the post-processing
// that turns one graph into available and conditional updates (the cluster-version-operator's pkg/cincinnati).
import semver from 'semver';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';
import { STATUS_CODES } from 'node:http';
import { LABEL, type MatchingRule, type Risk } from '../graph/model.js';
import type { ClusterRelease } from './clusterVersion.js';
import { readBounded } from '../readBounded.js';

export const DEFAULT_UPSTREAM = 'https://api.openshift.com/api/upgrades_info/v1/graph';

export type RetrievedReason =
  | 'NoUpstream'
  | 'InvalidURI'
  | 'InvalidID'
  | 'NoArchitecture'
  | 'NoCurrentVersion'
  | 'NoChannel'
  | 'InvalidCurrentVersion'
  | 'RemoteFailed'
  | 'ResponseFailed'
  | 'ResponseInvalid'
  | 'VersionNotFound';

export class RetrieveError extends Error {
  constructor(
    readonly reason: RetrievedReason,
    message: string,
  ) {
    super(message);
  }
}

export interface ConditionalUpdate {
  release: ClusterRelease;
  risks: Risk[];
}

export interface Updates {
  available: ClusterRelease[];
  conditional: ConditionalUpdate[];
}

export interface FetchInput {
  upstream: string | undefined;
  /** Used when spec.upstream is empty; '' means none, which is NoUpstream. */
  defaultUpstream?: string;
  clusterID: string;
  arch: string;
  channel: string | undefined;
  version: string | undefined;
}

export interface TransportOptions {
  /** PEM bundle the upstream's certificate is checked against. */
  ca?: string;
  /** https proxy URL (the Proxy object's, or HTTPS_PROXY); hosts in noProxy go direct. */
  proxy?: string;
  noProxy?: string;
  /** The whole fetch, connection to last byte, must end within this (default 60 s). */
  timeoutMs?: number;
  /** A graph answer larger than this is refused as it arrives (default MAX_GRAPH_BYTES). */
  maxBytes?: number;
}

/** Far above any real channel (the largest public one is about 0.3 MiB), far below what hurts the agent. */
export const MAX_GRAPH_BYTES = 16 * 1024 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// The semver.org grammar, build metadata included, as the CVO's Go semver reads it.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
export const isSemver = (v: unknown): v is string => typeof v === 'string' && SEMVER.test(v);

/** Checks the inputs in the CVO's order, then fetches and validates the graph. */
export async function fetchGraph(input: FetchInput, transport: TransportOptions = {}): Promise<GraphResponse> {
  const upstream = input.upstream || (input.defaultUpstream ?? DEFAULT_UPSTREAM);
  if (!upstream) throw new RetrieveError('NoUpstream', 'No updateService server has been set to retrieve updates.');
  let url: URL;
  try {
    url = new URL(upstream);
  } catch (err) {
    throw new RetrieveError('InvalidURI', `failed to parse update service URL: ${(err as Error).message}`);
  }
  if (!UUID.test(input.clusterID)) throw new RetrieveError('InvalidID', `invalid cluster ID: ${input.clusterID}`);
  if (!input.arch) throw new RetrieveError('NoArchitecture', 'Architecture has not been configured.');
  if (!input.version)
    throw new RetrieveError(
      'NoCurrentVersion',
      'The cluster version does not have a semantic version assigned and cannot calculate valid upgrades.',
    );
  if (!input.channel) throw new RetrieveError('NoChannel', 'The update channel has not been configured.');
  if (!isSemver(input.version)) {
    throw new RetrieveError(
      'InvalidCurrentVersion',
      'The current cluster version is not a valid semantic version and cannot be used to calculate upgrades.',
    );
  }
  url.searchParams.set('arch', input.arch);
  url.searchParams.set('channel', input.channel);
  url.searchParams.set('id', input.clusterID);
  url.searchParams.set('version', input.version);
  url.searchParams.sort();

  let status: number;
  let text: string;
  const timeoutMs = transport.timeoutMs ?? 60_000;
  const maxBytes = transport.maxBytes ?? MAX_GRAPH_BYTES;
  try {
    // One deadline for the whole exchange: a server sending a byte now and then never trips an idle timeout.
    const res = await request(url, {
      headers: { accept: 'application/json', 'user-agent': `ClusterVersionOperator/${input.version}` },
      dispatcher: dispatcher(url, transport),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.statusCode;
    const tooLarge = (): Error => new Error(`the answer is larger than ${maxBytes} bytes`);
    text = (await readBounded(res.body, maxBytes, tooLarge)).toString('utf8');
  } catch (err) {
    const why =
      err instanceof Error && err.name === 'TimeoutError' ? `no whole answer within ${timeoutMs} ms` : describe(err);
    throw new RetrieveError('RemoteFailed', `Unable to retrieve available updates: ${why}`);
  }
  if (status !== 200)
    throw new RetrieveError(
      'ResponseFailed',
      `Unable to retrieve available updates: unexpected HTTP status: ${status} ${statusText(status)}`,
    );
  const graph = parseGraph(text);
  if (!graph.nodes.some((n) => n.version === input.version)) {
    throw new RetrieveError(
      'VersionNotFound',
      `Unable to retrieve available updates: currently reconciling cluster version ${input.version} not found in the "${input.channel}" channel`,
    );
  }
  return graph;
}

function describe(err: unknown): string {
  const e = err as Error & { cause?: Error & { code?: string }; code?: string };
  return [e.message, e.cause?.code ?? e.code, e.cause?.message].filter(Boolean).join(': ');
}

const statusText = (s: number): string => STATUS_CODES[s] ?? 'Unknown';

function dispatcher(url: URL, t: TransportOptions): Dispatcher {
  const connect = t.ca ? { ca: t.ca } : undefined;
  const bypass = (t.noProxy ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)
    .some((h) => h === '*' || url.hostname === h || url.hostname.endsWith(h.startsWith('.') ? h : `.${h}`));
  if (t.proxy && !bypass) return new ProxyAgent({ uri: t.proxy, ...(connect && { requestTls: connect }) });
  return new Agent(connect ? { connect } : {});
}

export interface GraphResponse {
  nodes: Array<{ version: string; payload: string; metadata: Record<string, string> }>;
  edges: Array<[number, number]>;
  conditionalEdges: Array<{ edges: Array<{ from: string; to: string }>; risks: Risk[] }>;
}

/** Parses and validates a response as the CVO does: any defect fails the whole fetch (ResponseInvalid). */
export function parseGraph(text: string): GraphResponse {
  const invalid = (m: string): RetrieveError =>
    new RetrieveError('ResponseInvalid', `Unable to retrieve available updates: ${m}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw invalid(`invalid JSON: ${(err as Error).message}`);
  }
  const g = doc as Partial<GraphResponse>;
  if (!g || typeof g !== 'object' || !Array.isArray(g.nodes)) throw invalid('the graph has no nodes list');
  g.nodes.forEach((n, i) => {
    if (!n || typeof n !== 'object' || !isSemver(n.version))
      throw invalid(`node ${i}: version ${JSON.stringify(n?.version)} is not a semantic version`);
    if (typeof n.payload !== 'string') throw invalid(`node ${n.version}: payload is not a string`);
    if (n.metadata === null) n.metadata = {}; // Go reads a null map as an empty one
    if (
      n.metadata !== undefined &&
      (typeof n.metadata !== 'object' ||
        Array.isArray(n.metadata) ||
        Object.values(n.metadata).some((v) => typeof v !== 'string'))
    )
      throw invalid(`node ${n.version}: metadata values must be strings`);
    const arch = n.metadata?.[LABEL.architecture];
    if (arch !== undefined && arch !== 'multi')
      throw invalid(`node ${n.version}: unrecognized ${LABEL.architecture} value "${arch}"`);
  });
  const edges = g.edges ?? [];
  if (!Array.isArray(edges)) throw invalid('edges is not a list');
  edges.forEach((e, i) => {
    if (!Array.isArray(e) || e.length !== 2 || !e.every((x) => Number.isInteger(x) && x >= 0 && x < g.nodes!.length))
      throw invalid(`edge ${i} is not a pair of node indices`);
  });
  const conditionalEdges = g.conditionalEdges ?? [];
  if (!Array.isArray(conditionalEdges)) throw invalid('conditionalEdges is not a list');
  const versions = new Set(g.nodes.map((n) => n.version));
  for (const ce of conditionalEdges) {
    if (!ce || !Array.isArray(ce.edges) || !Array.isArray(ce.risks) || ce.risks.length === 0)
      throw invalid('a conditional edge entry needs edges and at least one risk');
    for (const e of ce.edges) {
      if (!versions.has(e?.from) || !versions.has(e?.to))
        throw invalid(`conditional edge ${JSON.stringify(e)} names a version that is not a node`);
    }
    for (const r of ce.risks) {
      const ok =
        r &&
        typeof r === 'object' &&
        ['name', 'url', 'message'].every(
          (k) =>
            typeof (r as unknown as Record<string, unknown>)[k] === 'string' &&
            (r as unknown as Record<string, string>)[k] !== '',
        );
      if (!ok) throw invalid(`a risk needs a name, url and message: ${JSON.stringify(r)?.slice(0, 200)}`);
      if (
        !Array.isArray(r.matchingRules) ||
        r.matchingRules.some((m) => !m || typeof m !== 'object' || typeof m.type !== 'string')
      )
        throw invalid(`risk ${r.name}: matchingRules must be a list of rules with a type`);
    }
  }
  return {
    nodes: g.nodes.map((n) => ({ ...n, metadata: n.metadata ?? {} })),
    edges: edges as Array<[number, number]>,
    conditionalEdges,
  };
}

const releaseOf = (n: GraphResponse['nodes'][number]): ClusterRelease => {
  const channels = (n.metadata[LABEL.channels] ?? '').split(',').filter(Boolean).sort();
  return {
    version: n.version,
    image: n.payload,
    ...(n.metadata.url && { url: n.metadata.url }),
    ...(channels.length && { channels }),
    ...(n.metadata[LABEL.architecture] === 'multi' && { architecture: 'Multi' }),
  };
};

/**
 * The rules a cluster can evaluate, as its schema holds them (anything else in a rule is not copied):
 * Always without promql, PromQL with a query; others are dropped.
 */
function validRules(rules: MatchingRule[]): MatchingRule[] {
  const out: MatchingRule[] = [];
  for (const r of rules) {
    const query = (r as { promql?: { promql?: unknown } }).promql?.promql;
    if (r.type === 'Always' && !('promql' in r)) out.push({ type: 'Always' });
    else if (r.type === 'PromQL' && typeof query === 'string' && query.trim() !== '')
      out.push({ type: 'PromQL', promql: { promql: query } } as MatchingRule);
  }
  return out;
}

/** A risk as the ClusterVersion schema holds it: its four fields, nothing else the graph may carry. */
const riskOf = (r: Risk): Risk => ({
  url: r.url,
  name: r.name,
  message: r.message,
  matchingRules: validRules(r.matchingRules ?? []),
});

/**
 * The updates of one response for the current version, each list by semver, newest first. As the CVO
 * reads a response (pkg/cincinnati/cincinnati.go): the targets of the current node's edges; a target that
 * is also conditional is conditional only; a target in two conditional entries is dropped; rules a cluster
 * cannot evaluate are dropped, and a risk left without a rule drops its update.
 */
export function updatesFrom(graph: GraphResponse, current: string, migrateToMulti = false): Updates {
  const index = graph.nodes.findIndex((n) => n.version === current);
  const byDesc = (a: { version: string }, b: { version: string }): number => semver.rcompare(a.version, b.version);
  if (migrateToMulti) return { available: index >= 0 ? [releaseOf(graph.nodes[index]!)] : [], conditional: [] };

  const available = new Map<string, ClusterRelease>();
  for (const [from, to] of graph.edges)
    if (from === index) available.set(graph.nodes[to]!.version, releaseOf(graph.nodes[to]!));

  const byVersion = new Map(graph.nodes.map((n) => [n.version, n]));
  const entries = new Map<string, ConditionalUpdate[]>();
  for (const ce of graph.conditionalEdges) {
    for (const e of ce.edges) {
      if (e.from !== current) continue;
      const list = entries.get(e.to) ?? [];
      list.push({ release: releaseOf(byVersion.get(e.to)!), risks: ce.risks });
      entries.set(e.to, list);
    }
  }
  const conditional: ConditionalUpdate[] = [];
  for (const [to, list] of entries) {
    available.delete(to); // both unconditional and conditional: the conditional one stands
    if (list.length > 1) continue; // two entries for one target: a cluster drops both
    const risks = list[0]!.risks.map(riskOf);
    if (risks.some((r) => r.matchingRules.length === 0)) continue; // a risk left with no rule drops the update
    conditional.push({ release: list[0]!.release, risks });
  }
  return {
    available: [...available.values()].sort(byDesc),
    conditional: conditional.sort((a, b) => byDesc(a.release, b.release)),
  };
}
