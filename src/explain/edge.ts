// Why there is, or is not, an update edge from one version to another in one channel and arch: read
// from the built graph and the input it was built from, in the order the build applies its rules
// (release records and edge labels add edges, risk files make them conditional, metadata rules and
// hard blocks remove them, channels filter them). It stands above the graph core and the promotion
// engine (src/promotion/), which it asks when a version would enter the channel.
import { didYouMean } from '../graph/closestName.js';
import type {
  BlockedEdge,
  Channel,
  FullGraph,
  GraphInput,
  GraphNode,
  Membership,
  Release,
  Risk,
} from '../graph/model.js';
import { LABEL } from '../graph/model.js';
import { compilePattern } from '../graph/pattern.js';
import { splitArch } from '../graph/version.js';
import { nodeId } from '../graph/workGraph.js';
import { promotionVerdict, type FeederCheck } from '../promotion/verdict.js';

export interface ExplainOptions {
  membership?: Membership;
  /** The time the feeder's delay is measured against. */
  now?: Date;
}

/** The edge asked about: from one version to another, in one channel of one arch (the route fills in the arch). */
export interface EdgeQuestion {
  from: string;
  to: string;
  channel: string;
  arch: string;
}

export type ExplainCode =
  | 'unknown-channel'
  | 'not-a-release'
  | 'release-removed'
  | 'not-in-channel'
  | 'not-listed'
  | 'removed-by-metadata'
  | 'blocked'
  | 'conditional'
  | 'recommended';

export interface NotInChannel {
  version: string;
  /** The public channels of this arch that have it. */
  channels: string[];
  feeder?: FeederCheck;
}

export interface MetadataRule {
  version: string; // the version whose metadata holds the label
  label: string;
  value: string;
}

export interface BlockingFile {
  id: string;
  from: string;
  to: string;
  /** Absent for a hard block. */
  risk?: Risk;
}

export interface Explanation {
  from: string;
  to: string;
  channel: string;
  arch: string;
  edge: boolean;
  recommended?: boolean;
  code: ExplainCode;
  message: string;
  risks?: Risk[];
  notInChannel?: NotInChannel[];
  metadataRules?: MetadataRule[];
  blockedBy?: BlockingFile[];
  /** Where else the edge exists (channels of this arch containing both versions), when it exists in the graph. */
  edgeInChannels?: string[];
}

export function explainEdge(
  full: FullGraph,
  input: GraphInput,
  q: EdgeQuestion,
  options: ExplainOptions = {},
): Explanation {
  const base = { from: q.from, to: q.to, channel: q.channel, arch: q.arch };
  const say = (code: ExplainCode, message: string, extra: Partial<Explanation> = {}): Explanation => ({
    ...base,
    edge: code === 'recommended' || code === 'conditional',
    code,
    message,
    ...extra,
  });
  const channel = input.channels.find((c) => !c.internal && c.name === q.channel);
  if (!channel) {
    const known = input.channels.filter((c) => !c.internal).map((c) => c.name);
    return say('unknown-channel', `there is no public channel ${q.channel}${didYouMean(q.channel, known)}`);
  }

  const releases = new Map(input.releases.filter((r) => r.arch === q.arch).map((r) => [r.version, r]));
  for (const v of [q.from, q.to])
    if (!releases.has(v)) return say('not-a-release', `${v} is not a release of ${q.arch}`);
  const nodes = new Map<string, number>();
  full.nodes.forEach((n, i) => n.arch === q.arch && nodes.set(n.version, i));
  for (const v of [q.from, q.to])
    if (!nodes.has(v))
      return say('release-removed', `${v} is removed from the graph by its ${LABEL.remove} metadata`, {
        metadataRules: [{ version: v, label: LABEL.remove, value: 'true' }],
      });
  const f = nodes.get(q.from)!;
  const t = nodes.get(q.to)!;
  const fromNode = full.nodes[f]!;
  const toNode = full.nodes[t]!;

  const unconditional = hasEdge(full, f, t);
  const pair = conditionalPair(full, f, t);
  const edgeInChannels =
    unconditional || pair ? fromNode.channels.filter((c) => toNode.channels.includes(c)) : undefined;

  const missing = [fromNode, toNode].filter((n) => !n.channels.includes(q.channel));
  if (missing.length > 0) {
    const notInChannel = missing.map((n) => ({
      version: n.version,
      channels: n.channels,
      ...(channel.feeder && { feeder: feederCheck(full, input, channel, n.version, q.arch, options) }),
    }));
    const which = notInChannel
      .map(
        (m) =>
          `${m.version} is not in ${q.channel} (${m.channels.length ? `it is in ${m.channels.join(', ')}` : 'it is in no public channel'})`,
      )
      .join('; ');
    const where = edgeInChannels?.length ? `; the edge exists in ${edgeInChannels.join(', ')}` : '';
    return say('not-in-channel', `${which}${where}`, { notInChannel, ...(edgeInChannels && { edgeInChannels }) });
  }

  if (unconditional)
    return say('recommended', `${q.from} → ${q.to} is a recommended edge in ${q.channel}`, {
      recommended: true,
      edgeInChannels,
    });
  if (pair) {
    const files = riskFiles(input.blockedEdges, q, pair.risks);
    return say(
      'conditional',
      `${q.from} → ${q.to} is a conditional edge in ${q.channel}, with the risks ${pair.risks.map((r) => r.name).join(', ')}`,
      { recommended: false, risks: pair.risks, blockedBy: files, edgeInChannels },
    );
  }

  const from = releases.get(q.from)!;
  const to = releases.get(q.to)!;
  if (!listed(from, to, fromNode, toNode, q.arch))
    return say(
      'not-listed',
      `the previous of ${q.to} does not list ${q.from}, and the next of ${q.from} does not list ${q.to} (nor do the ${LABEL.previousAdd}/${LABEL.nextAdd} labels)`,
    );

  const hard = input.blockedEdges
    .filter((b) => !b.risk && names(b.to, q.to, q.arch) && matches(b.from, nodeId(q.from, q.arch)))
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((b) => ({ id: b.id, from: b.from, to: b.to }));
  const rules = metadataRules(input, from, to, fromNode, toNode, q.arch);
  if (hard.length > 0)
    return say(
      'blocked',
      `${q.from} → ${q.to} is blocked by the blocked-edges file ${hard.map((h) => `${h.id}.yaml`).join(', ')} (a hard block: no risk)`,
      {
        blockedBy: hard,
        ...(rules.length > 0 && { metadataRules: rules }),
      },
    );
  if (rules.length > 0)
    return say(
      'removed-by-metadata',
      `${q.from} → ${q.to} is removed by ${rules.map((r) => `${r.label}=${r.value} on ${r.version}`).join('; ')}`,
      { metadataRules: rules },
    );
  return say('not-listed', `no rule adds an edge from ${q.from} to ${q.to}`);
}

function hasEdge(full: FullGraph, f: number, t: number): boolean {
  for (let e = full.edgeOffsets[f]!; e < full.edgeOffsets[f + 1]!; e++) if (full.edgeTargets[e] === t) return true;
  return false;
}

function conditionalPair(full: FullGraph, f: number, t: number): { risks: Risk[] } | undefined {
  for (let c = full.conditionalOffsets[f]!; c < full.conditionalOffsets[f + 1]!; c++)
    if (full.conditional[c]!.to === t) return full.conditional[c];
  return undefined;
}

/** Whether a version written in graph-data (`4.1.0` or `4.1.0+amd64`) names this version of this arch. */
function names(text: string, version: string, arch: string): boolean {
  const ref = splitArch(text.trim());
  return ref.version === version && (ref.arch === undefined || ref.arch === arch);
}

function matches(pattern: string, id: string): boolean {
  try {
    return compilePattern(pattern).test(id);
  } catch {
    return false;
  }
}

const list = (s: string | undefined): string[] =>
  (s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/** Whether release records or edge labels link the two versions (before any removal). */
function listed(from: Release, to: Release, fromNode: GraphNode, toNode: GraphNode, arch: string): boolean {
  const refersTo = (items: string[], version: string): boolean => items.some((x) => names(x, version, arch));
  return (
    refersTo(to.previous, from.version) ||
    refersTo(from.next, to.version) ||
    refersTo(list(toNode.metadata?.[LABEL.previousAdd]), from.version) ||
    refersTo(list(fromNode.metadata?.[LABEL.nextAdd]), to.version)
  );
}

/** The metadata labels (release records and raw/metadata.json, blocked edges aside) that remove the edge. */
function metadataRules(
  input: GraphInput,
  from: Release,
  to: Release,
  fromNode: GraphNode,
  toNode: GraphNode,
  arch: string,
): MetadataRule[] {
  const out: MetadataRule[] = [];
  const previousRemove = toNode.metadata?.[LABEL.previousRemove];
  if (
    previousRemove !== undefined &&
    (previousRemove.trim() === '*' || list(previousRemove).some((x) => names(x, from.version, arch)))
  )
    out.push({ version: to.version, label: LABEL.previousRemove, value: previousRemove });
  const nextRemove = fromNode.metadata?.[LABEL.nextRemove];
  if (nextRemove !== undefined && list(nextRemove).some((x) => names(x, to.version, arch)))
    out.push({ version: from.version, label: LABEL.nextRemove, value: nextRemove });
  // The build appends blocked-edges patterns to remove_regex; only the rules written as metadata count here.
  const written = [to.metadata[LABEL.previousRemoveRegex]];
  for (const [key, md] of Object.entries(input.rawMetadata))
    if (names(key, to.version, arch)) written.push(md[LABEL.previousRemoveRegex]);
  for (const regex of written)
    if (regex !== undefined && regex !== '' && matches(regex, nodeId(from.version, arch)))
      out.push({ version: to.version, label: LABEL.previousRemoveRegex, value: regex });
  return out;
}

/** The risk files whose risks make the pair conditional. */
function riskFiles(blocked: BlockedEdge[], q: EdgeQuestion, risks: Risk[]): BlockingFile[] {
  const wanted = new Set(risks.map((r) => r.name));
  return blocked
    .filter(
      (b) => b.risk && wanted.has(b.risk.name) && names(b.to, q.to, q.arch) && matches(b.from, nodeId(q.from, q.arch)),
    )
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((b) => ({ id: b.id, from: b.from, to: b.to, risk: b.risk! }));
}

/**
 * The channel's feeder rules applied to a version by the promotion engine, with the snapshot's facts.
 * The version is looked up in the feeder as promotion would name it: bare, or with this arch's suffix
 * when only that entry is there.
 */
export function feederCheck(
  full: FullGraph,
  input: GraphInput,
  target: Channel,
  version: string,
  arch: string,
  options: ExplainOptions,
): FeederCheck {
  const now = options.now ?? new Date();
  const feeder = target.feeder!;
  const source =
    input.channels.find((c) => c.internal && c.name === feeder.name) ??
    input.channels.find((c) => !c.internal && c.name === feeder.name);
  const suffixed = `${version}+${arch}`;
  const entry = source && !source.versions.includes(version) && source.versions.includes(suffixed) ? suffixed : version;
  const verdict = promotionVerdict(target, entry, {
    feederSource: () => source,
    isMember: (from, v) => from.versions.includes(v),
    addedAt: (from, v) => options.membership?.get(`${from.internal ? 'internal' : 'public'}/${from.name}`)?.get(v),
    // Every arch of the version, with the metadata the build merged (an errata url may come from raw metadata).
    releasesOf: (v) => {
      const { version: bare, arch: only } = splitArch(v);
      return input.releases
        .filter((r) => r.version === bare && (only === undefined || r.arch === only))
        .map((r) => {
          const node = full.nodes.find((n) => n.version === bare && n.arch === r.arch);
          return { ...r, metadata: node?.metadata ?? r.metadata };
        });
    },
    now,
  });
  return verdict.feeder!;
}
