// Every write of the admin API: validated, one transaction, audited, then one rebuild and snapshot
// swap. The routes and the auto-promotion scheduler both go through here.
import type { BlockedEdge, Channel, GraphInput, Release } from '../../graph/model.js';
import { channelView } from '../../graph/view.js';
import { splitArch } from '../../graph/version.js';
import { compilePattern } from '../../graph/pattern.js';
import { ScaledClock, type Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { payloadDigest } from '../../graph/model.js';
import { SignatureRefused, TrustStore, verifySignature } from '../../signatures/verify.js';
import type { StoredSignature } from '../../store/signatures.js';
import { checkPromotion, type Refusal } from '../../promotion/rules.js';
import type { ReleaseRecord } from '../../schemas/graphData.js';
import { classifyBlockedEdge } from '../../validation/blockedEdges.js';
import { checkChannel } from '../../validation/channels.js';
import { checkReleaseDocument, releaseFromRecord } from '../../validation/releaseRecords.js';
import type { Problem } from '../../validation/problems.js';
import type { Feeder, RawMetadata } from '../../schemas/graphData.js';
import type { GraphService } from '../graphService.js';
import { channelKind, type ChannelKind } from '../../store/channels.js';
import type { Store } from '../../store/store.js';

export interface Actor {
  subject: string;
}

export interface EdgeChange {
  arch: string;
  from: string;
  to: string;
  risks?: string[];
}

export interface PromotionResult {
  channel: string;
  kind: ChannelKind;
  version: string;
  changed: boolean;
  forced: boolean;
  dryRun: boolean;
  refusal?: Refusal;
  /** Edges the served graph of the channel gains (dry runs only). */
  edges?: EdgeChange[];
  conditionalEdges?: EdgeChange[];
}

export class AdminService {
  private readonly clock: Clock;
  private readonly trust: TrustStore;

  constructor(
    private readonly store: Store,
    private readonly graph: GraphService,
    options: { clock?: Clock; trust?: TrustStore } = {},
  ) {
    this.clock = options.clock ?? new ScaledClock(1);
    this.trust = options.trust ?? TrustStore.empty();
  }

  private now(): Date {
    return new Date(this.clock.now());
  }

  /** Runs a write in one transaction, then rebuilds once when it changed something. */
  private write<T>(fn: (at: string) => { result: T; changed: boolean }): T {
    const at = this.now().toISOString();
    const { result, changed } = this.store.transaction(() => fn(at));
    if (changed) this.graph.rebuild();
    return result;
  }

  private audit(at: string, actor: Actor, action: string, target: string, before: unknown, after: unknown, reason: string | null = null): void {
    this.store.audit.record({ at, actor: actor.subject, action, target, before, after, reason });
  }

  // ---- releases

  /** Stores release records; all or nothing. `created` is false when every record was already stored as is. */
  addReleases(records: unknown[], actor: Actor): { created: boolean; releases: Release[] } {
    const problems: Problem[] = [];
    records.forEach((rec, i) => checkReleaseDocument(rec, records.length > 1 ? `body[${i}]` : 'body', problems));
    if (problems.length) throw invalid(problems);
    const releases = (records as ReleaseRecord[]).map(releaseFromRecord);
    return this.write((at) => {
      let created = false;
      let changed = false;
      for (const r of releases) {
        const stored = this.store.releases.get(r.arch, r.version);
        if (stored && stored.payload !== r.payload) {
          throw new ApiError('conflict', `release ${r.version} (${r.arch}) is stored with payload ${stored.payload}; refusing ${r.payload}`);
        }
        const outcome = this.store.releases.upsert(r, at);
        if (outcome !== 'unchanged') this.audit(at, actor, outcome === 'added' ? 'release.add' : 'release.update', `${r.arch}/${r.version}`, stored, r);
        created ||= outcome === 'added';
        changed ||= outcome !== 'unchanged';
      }
      return { result: { created, releases }, changed };
    });
  }

  deleteRelease(arch: string, version: string, actor: Actor, reason: string | null): Release {
    return this.write((at) => {
      const before = this.store.releases.get(arch, version);
      if (!before) throw new ApiError('does_not_exist', `no release ${version} for ${arch}`);
      this.store.releases.delete(arch, version);
      this.audit(at, actor, 'release.delete', `${arch}/${version}`, before, null, reason);
      return { result: before, changed: true };
    });
  }

  // ---- signatures

  /** Verifies a signature for a release's payload digest and stores it (never rewriting one). */
  async addSignature(arch: string, version: string, bytes: Buffer, actor: Actor): Promise<{ signature: StoredSignature; added: boolean }> {
    const release = this.store.releases.get(arch, version);
    if (!release) throw new ApiError('does_not_exist', `no release ${version} for ${arch}`);
    const digest = payloadDigest(release.payload);
    let verified;
    try {
      verified = await verifySignature(bytes, digest, this.trust, this.now());
    } catch (err) {
      if (err instanceof SignatureRefused) throw new ApiError('invalid_signature', `${err.reason}: ${err.message}`);
      throw err;
    }
    return this.write((at) => {
      const r = this.store.signatures.add({ digest, envelope: verified.envelope, keyId: verified.keyId, bytes, verifiedAt: at });
      if (r.added) this.audit(at, actor, 'signature.add', `${arch}/${version}`, null, { digest, n: r.signature.n, envelope: r.signature.envelope, keyId: r.signature.keyId });
      // Only a graph that withholds unsigned releases changes with a signature.
      return { result: r, changed: r.added && this.graph.signatures.required };
    });
  }

  // ---- channels

  /** The problems of a channel body, as one 400 error, or undefined. */
  channelProblems(name: string, body: { versions: string[]; feeder?: Feeder; tombstones?: string[] }): ApiError | undefined {
    const problems: Problem[] = [];
    checkChannel({ name, ...body }, 'body', problems);
    return problems.length ? invalid(problems) : undefined;
  }

  putChannel(kind: ChannelKind, name: string, body: { versions: string[]; feeder?: Feeder; tombstones?: string[] }, actor: Actor): { channel: Channel; created: boolean } {
    const channel: Channel = { name, internal: kind === 'internal', versions: body.versions, tombstones: body.tombstones ?? [] };
    if (body.feeder) channel.feeder = body.feeder;
    return this.write((at) => {
      const before = this.store.channels.get(kind, name);
      const outcome = this.store.channels.upsert(channel, at);
      if (outcome !== 'unchanged') this.audit(at, actor, before ? 'channel.replace' : 'channel.create', `${kind}/${name}`, before, channel);
      return { result: { channel: this.store.channels.get(kind, name)!, created: !before }, changed: outcome !== 'unchanged' };
    });
  }

  /** Where a feeder's name points: an internal channel of that name, else a public one. */
  private feederSource(feeder: Feeder | undefined): { kind: ChannelKind; channel: Channel } | undefined {
    if (!feeder) return undefined;
    for (const kind of ['internal', 'public'] as const) {
      const channel = this.store.channels.get(kind, feeder.name);
      if (channel) return { kind, channel };
    }
    return undefined;
  }

  /** Releases of a version, with raw metadata merged as the graph merges it (an errata url may come from there). */
  private releasesOf(version: string, rawMetadata: RawMetadata): Release[] {
    const ref = splitArch(version);
    const raw = rawMetadata[ref.version];
    return this.store.releases
      .byVersion(ref.version)
      .filter((r) => ref.arch === undefined || r.arch === ref.arch)
      .map((r) => (raw ? { ...r, metadata: { ...raw, ...r.metadata } } : r));
  }

  /** Why a version may not enter a channel now, or undefined when it may. */
  refusal(kind: ChannelKind, name: string, version: string): Refusal | undefined {
    const target = this.store.channels.get(kind, name);
    if (!target) throw new ApiError('does_not_exist', `no ${kind} channel ${name}`);
    return this.rulesFor(target)(version);
  }

  /** When each version entered a channel. */
  private membersSince(kind: ChannelKind, name: string): Map<string, Date> {
    return new Map(this.store.channels.members(kind, name).map((m) => [m.version, new Date(m.addedAt)]));
  }

  /** The promotion check of one target channel, with the target and its feeder's members read once. */
  private rulesFor(target: Channel, sourceSince?: (kind: ChannelKind, name: string) => Map<string, Date>): (version: string) => Refusal | undefined {
    const source = this.feederSource(target.feeder);
    const since = source ? (sourceSince ?? this.membersSince.bind(this))(source.kind, source.channel.name) : new Map<string, Date>();
    const now = this.now();
    const raw = this.store.rawMetadata(); // read once: a pass checks many versions
    return (version) => checkPromotion({ version, target, source: source?.channel, sourceAddedAt: since.get(version), releases: this.releasesOf(version, raw), now });
  }

  promote(kind: ChannelKind, name: string, req: { version: string; force?: boolean; reason?: string }, actor: Actor, dryRun = false): PromotionResult {
    if (req.force && !req.reason?.trim()) throw new ApiError('invalid_request', 'body.reason: a forced promotion needs a reason');
    if (dryRun) return this.promoteIn(this.now().toISOString(), kind, name, req, actor, true).result;
    return this.write((at) => this.promoteIn(at, kind, name, req, actor, false));
  }

  /** One promotion inside the caller's transaction. */
  private promoteIn(at: string, kind: ChannelKind, name: string, req: { version: string; force?: boolean; reason?: string }, actor: Actor, dryRun: boolean): { result: PromotionResult; changed: boolean } {
    const base = { channel: name, kind, version: req.version, forced: false, dryRun };
    if (this.store.channels.memberSince(kind, name, req.version)) return { result: { ...base, changed: false }, changed: false };
    const refusal = this.refusal(kind, name, req.version);
    if (refusal && (!req.force || refusal.rule === 'release')) {
      if (dryRun) return { result: { ...base, changed: false, refusal }, changed: false };
      throw new ApiError('promotion_refused', `${refusal.rule}: ${refusal.message}`);
    }
    const forced = refusal !== undefined;
    if (dryRun) return { result: { ...base, forced, changed: true, ...this.edgesGained(kind, name, req.version) }, changed: false };
    this.store.channels.addVersion(kind, name, req.version, at);
    this.audit(at, actor, forced ? 'channel.promote.forced' : 'channel.promote', `${kind}/${name}`, null, { version: req.version, ...(refusal && { bypassed: refusal }) }, req.reason ?? null);
    return { result: { ...base, forced, changed: true }, changed: true };
  }

  withdraw(kind: ChannelKind, name: string, version: string, reason: string | null, actor: Actor): { changed: boolean } {
    return this.write((at) => {
      const channel = this.store.channels.get(kind, name);
      if (!channel) throw new ApiError('does_not_exist', `no ${kind} channel ${name}`);
      const removed = this.store.channels.removeVersion(kind, name, version, at, true);
      if (!removed) throw new ApiError('does_not_exist', `${version} is not in ${kind} channel ${name}`);
      this.audit(at, actor, 'channel.withdraw', `${kind}/${name}`, { version }, { tombstoned: version }, reason);
      return { result: { changed: true }, changed: true };
    });
  }

  /** The edges and conditional edges the channel's served graph would gain with the version in it. */
  private edgesGained(kind: ChannelKind, name: string, version: string): { edges: EdgeChange[]; conditionalEdges: EdgeChange[] } {
    if (kind === 'internal') return { edges: [], conditionalEdges: [] };
    const input = this.store.input();
    const after: GraphInput = { ...input, channels: input.channels.map((c) => (!c.internal && c.name === name ? { ...c, versions: [...c.versions, version] } : c)) };
    // The served snapshot is the graph of the store as it is (every write rebuilds it). Both sides
    // are built as served, so a release the signature policy withholds gains no edge.
    const [g0, g1] = [this.graph.current?.graph ?? this.graph.preview(input), this.graph.preview(after)];
    const edges: EdgeChange[] = [];
    const conditionalEdges: EdgeChange[] = [];
    for (const arch of [...new Set(g1.nodes.map((n) => n.arch))].sort()) {
      const [v0, v1] = [channelView(g0, name, arch), channelView(g1, name, arch)];
      const had = new Set(v0.edges.map(([a, b]) => `${v0.nodes[a]!.version}>${v0.nodes[b]!.version}`));
      for (const [a, b] of v1.edges) {
        const e = { arch, from: v1.nodes[a]!.version, to: v1.nodes[b]!.version };
        if (!had.has(`${e.from}>${e.to}`)) edges.push(e);
      }
      const hadCond = new Set(v0.conditionalEdges.flatMap((c) => c.edges.map((e) => `${e.from}>${e.to}`)));
      for (const c of v1.conditionalEdges) {
        for (const e of c.edges) if (!hadCond.has(`${e.from}>${e.to}`)) conditionalEdges.push({ arch, ...e, risks: c.risks.map((r) => r.name) });
      }
    }
    return { edges, conditionalEdges };
  }

  // ---- risks

  addRisk(body: Record<string, unknown>, actor: Actor): { edge: BlockedEdge; warnings: string[] } {
    const { id: requestedId, ...doc } = body;
    const problems: Problem[] = [];
    const warnings: Problem[] = [];
    const name = typeof doc.name === 'string' ? doc.name : 'block';
    const id = typeof requestedId === 'string' && requestedId !== '' ? requestedId : `${String(doc.to)}-${name}`;
    if (!/^[\w.+-]+$/.test(id)) problems.push({ file: 'body', field: 'id', message: `'${id}' may hold only letters, digits, '.', '+', '-' and '_'` });
    const edge = classifyBlockedEdge(doc, 'body', id, problems, warnings);
    if (problems.length || !edge) throw invalid(problems);
    return this.write((at) => {
      if (this.store.blockedEdges.get(id)) throw new ApiError('conflict', `a blocked edge with id '${id}' exists; delete it first or give another id`);
      this.store.blockedEdges.upsert(edge, at);
      this.audit(at, actor, edge.risk ? 'risk.add' : 'block.add', id, null, edge);
      return { result: { edge, warnings: warnings.map((w) => `body.${w.field}: ${w.message}`) }, changed: true };
    });
  }

  deleteRisk(id: string, actor: Actor, reason: string | null): BlockedEdge {
    return this.write((at) => {
      const before = this.store.blockedEdges.get(id);
      if (!before) throw new ApiError('does_not_exist', `no blocked edge with id '${id}'`);
      this.store.blockedEdges.delete(id);
      this.audit(at, actor, before.risk ? 'risk.delete' : 'block.delete', id, before, null, reason);
      return { result: before, changed: true };
    });
  }

  // ---- automatic promotion

  /**
   * Applies every feeder once, internal channels first and then public ones, each channel after the
   * channel that feeds it, so a release can climb several rungs in one pass when no delay holds it.
   */
  autoPromote(actor: Actor = { subject: 'feeder' }): Array<{ channel: string; kind: ChannelKind; version: string }> {
    // One transaction and one rebuild for the whole pass.
    return this.write((at) => {
      const done: Array<{ channel: string; kind: ChannelKind; version: string }> = [];
      // Feeder channels are read once per pass, and again only after this pass promoted into them.
      const cache = new Map<string, Map<string, Date>>();
      const since = (kind: ChannelKind, name: string): Map<string, Date> => {
        let m = cache.get(`${kind}/${name}`);
        if (!m) cache.set(`${kind}/${name}`, (m = this.membersSince(kind, name)));
        return m;
      };
      for (const target of feederOrder(this.store.channels.all())) {
        const kind = channelKind(target);
        const source = this.feederSource(target.feeder);
        if (!source) continue;
        const members = new Set(target.versions);
        const filter = target.feeder?.filter === undefined ? undefined : compilePattern(target.feeder.filter);
        const refusal = this.rulesFor(target, since);
        for (const version of since(source.kind, source.channel.name).keys()) {
          if (members.has(version) || (filter && !filter.matchesStart(splitArch(version).version))) continue; // cheap checks first
          if (refusal(version)) continue;
          this.promoteIn(at, kind, target.name, { version }, actor, false);
          cache.delete(`${kind}/${target.name}`);
          done.push({ channel: target.name, kind, version });
        }
      }
      return { result: done, changed: done.length > 0 };
    });
  }
}

/** Channels with a feeder, each after the channel its feeder names (internal names first on ties). */
export function feederOrder(channels: Channel[]): Channel[] {
  const fed = channels.filter((c) => c.feeder);
  const key = (c: Channel): string => `${channelKind(c)}/${c.name}`;
  const byName = new Map<string, Channel>();
  for (const c of channels) if (!byName.has(c.name) || c.internal) byName.set(c.name, c);
  const out: Channel[] = [];
  const seen = new Set<string>();
  const visit = (c: Channel, depth: number): void => {
    if (seen.has(key(c)) || depth > channels.length) return;
    const source = c.feeder && byName.get(c.feeder.name);
    if (source?.feeder) visit(source, depth + 1);
    if (seen.has(key(c))) return;
    seen.add(key(c));
    if (c.feeder) out.push(c);
  };
  for (const c of [...fed].sort((a, b) => Number(b.internal) - Number(a.internal) || (a.name < b.name ? -1 : 1))) visit(c, 0);
  return out;
}

export function invalid(problems: Problem[]): ApiError {
  const where = (p: Problem): string => (p.field === '(document)' || p.field === '-' ? p.file : `${p.file}.${p.field}`);
  return new ApiError('invalid_request', problems.map((p) => `${where(p)}: ${p.message}`).join('; '));
}
