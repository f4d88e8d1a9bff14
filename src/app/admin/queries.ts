// The admin API's reads: releases (filtered, in semver order), one release with its channels, risks,
// signatures and whether it is served, channels, risks, the audit log, and the whole state as a
// graph-data tarball. Every list is paginated (./pagination.ts). Everything but the audit log (read
// a page at a time from its index) and the tarball is answered from the read model of the store's
// current generation (./readModel.ts), made on the first read after a write: a page costs the items
// it shows and a binary search, never a scan of the store. Lists come back as JSON bytes: each item
// is serialized once per generation, and a page asked again is the bytes made the first time.
import { didYouMean } from '../../graph/closestName.js';
import { ApiError } from '../../errors.js';
import type { BlockedEdge, Channel } from '../../graph/model.js';
import { isReleaseVersion } from '../../graph/version.js';
import type { ChannelDoc, ChannelKind, ChannelPage, ReleaseDetail, ReleaseListQuery } from '../../schemas/admin.js';
import type { GraphDataTarball } from '../../sources/export.js';
import { releaseRecord } from '../../sources/releaseRecord.js';
import type { AuditEntry } from '../../store/audit.js';
import { channelKind } from '../../store/channels.js';
import type { StoredSignature } from '../../store/signatures.js';
import type { Store, StoreTx } from '../../store/store.js';
import type { GraphService } from '../graphService.js';
import {
  badCursor,
  decodeCursor,
  encodeCursor,
  firstIndex,
  limitOf,
  pageJson,
  pageOf,
  type PageRequest,
} from './pagination.js';
import { AnswerCache } from './answerCache.js';
import { AdminReadModel, compareReleaseKeys, type ReleaseIndex } from './readModel.js';

/** The largest id an audit entry can have. */
const MAX_AUDIT_ID = 2 ** 31 - 1;

/** An answer already serialized: a JSON object as bytes. */
export type JsonBytes = Buffer;

export interface AuditPage {
  entries: AuditEntry[];
  nextCursor?: string;
}

export class AdminQueries {
  private model: { generation: number; made: Promise<AdminReadModel> } | undefined;
  private answers: AnswerCache | undefined;
  /** How many read models have been made: one per store generation that was read. */
  modelBuilds = 0;

  constructor(
    private readonly store: Store,
    private readonly graph: GraphService,
  ) {}

  /**
   * The read model of the store's current generation, made now if the store changed since the last
   * one (once, however many requests ask meanwhile); a 503 when the database cannot be read.
   */
  async readModel(): Promise<AdminReadModel> {
    const generation = this.store.generation;
    if (this.model?.generation !== generation) {
      const made = AdminReadModel.build(this.store, this.graph.signatures, generation);
      this.model = { generation, made };
      this.modelBuilds += 1;
      // A failed read is not kept: the next request reads again.
      made.catch(() => {
        if (this.model?.made === made) this.model = undefined;
      });
    }
    return this.model.made;
  }

  /** A list answer of the current read model: made once per model and request, then bytes already made. */
  private async answer(
    request: Array<string | number | undefined>,
    make: (m: AdminReadModel) => string,
  ): Promise<JsonBytes> {
    const m = await this.readModel();
    if (this.answers?.model !== m) this.answers = new AnswerCache(m);
    return this.answers.answer(request.join('\u0000'), () => make(m));
  }

  /** Releases sorted by version then arch, a page at a time: `{releases, nextCursor?}`. */
  releases(q: ReleaseListQuery): Promise<JsonBytes> {
    return this.answer(['releases', q.arch, q.version, q.channel, limitOf(q), q.cursor], (m) => this.releasePage(m, q));
  }

  private releasePage(m: AdminReadModel, q: ReleaseListQuery): string {
    const filters: ReleaseIndex[] = [];
    if (q.arch) filters.push(m.releasesOfArch(q.arch));
    if (q.version)
      filters.push(
        q.version.endsWith('*') ? m.releasesWithPrefix(q.version.slice(0, -1)) : m.releasesOfVersion(q.version),
      );
    if (q.channel) {
      const channel = m.channelNamed(q.channel);
      if (!channel)
        throw new ApiError('does_not_exist', `no channel ${q.channel}${didYouMean(q.channel, m.channelNames())}`);
      filters.push(m.releasesInChannel(channel));
    }
    // Walk the smallest index; the other filters test each release it gives.
    const walked = filters.reduce((a, b) => (b.positions.length < a.positions.length ? b : a), m.allReleases);
    const others = filters.filter((f) => f !== walked);
    let start = 0;
    if (q.cursor) {
      const [version, arch] = decodeCursor<[string, string]>('releases', q.cursor, ['string', 'string']);
      if (!isReleaseVersion(version)) throw badCursor();
      start = firstIndex(walked.positions, (p) => compareReleaseKeys(m.releases[p]!, { version, arch }) > 0);
    }
    const page = pageOf(
      walked.positions,
      start,
      limitOf(q),
      (p) => m.releaseJson(p),
      (p) => encodeCursor('releases', [m.releases[p]!.version, m.releases[p]!.arch]),
      (p) => others.every((f) => f.has(p)),
    );
    return pageJson('releases', page);
  }

  /** One release with the channels it is in (and since when), its risks and signatures, and whether it is served. */
  async release(arch: string, version: string): Promise<ReleaseDetail> {
    const m = await this.readModel();
    const position = m.releasePosition(arch, version);
    if (position === undefined) throw new ApiError('does_not_exist', `no release ${version} for ${arch}`);
    const release = m.release(position);
    const withheld = m.withheld(release);
    return {
      release: releaseRecord(release),
      channels: m.channelsOf(arch, version),
      risks: m.risksTo(arch, version),
      signatures: m.signaturesOf(release),
      served: withheld === undefined,
      ...(withheld && { withheldBecause: withheld }),
    };
  }

  /** Signature `n` of a payload digest, as stored. */
  signature(digest: string, n: number): Promise<StoredSignature | undefined> {
    return this.store.read((tx) => tx.signatures.get(digest, n));
  }

  /** The channels of a kind by name, each whole, a page at a time: `{channels, nextCursor?}`. */
  channels(kind: ChannelKind, q: PageRequest): Promise<JsonBytes> {
    return this.answer(['channels', kind, limitOf(q), q.cursor], (m) => this.channelPage(m, kind, q));
  }

  private channelPage(m: AdminReadModel, kind: ChannelKind, q: PageRequest): string {
    const list = m.channels[kind];
    const name = `${kind}-channels`;
    let start = 0;
    if (q.cursor) {
      const [after] = decodeCursor<[string]>(name, q.cursor, ['string']);
      start = firstIndex(list, (c) => c.name > after);
    }
    const page = pageOf(
      list,
      start,
      limitOf(q),
      (c) => m.channelJson(c),
      (c) => encodeCursor(name, [c.name]),
    );
    return pageJson('channels', page);
  }

  /** A channel with one page of its versions, in the order they entered it, each with the time it did. */
  async channel(kind: ChannelKind, name: string, q: PageRequest): Promise<ChannelPage> {
    const m = await this.readModel();
    const entry = m.channel(kind, name);
    if (!entry)
      throw new ApiError('does_not_exist', `no ${kind} channel ${name}${didYouMean(name, m.channelNames(kind))}`);
    let start = 0;
    if (q.cursor) {
      const [k, n, after] = decodeCursor<[string, string, number]>('versions', q.cursor, [
        'string',
        'string',
        'number',
      ]);
      if (k !== kind || n !== name) throw badCursor();
      start = firstIndex(entry.members, (v) => v.position > after);
    }
    const page = pageOf(
      entry.members,
      start,
      limitOf(q),
      (v) => ({ version: v.version, addedAt: v.addedAt }),
      (v) => encodeCursor('versions', [kind, name, v.position]),
    );
    return {
      name,
      kind,
      versions: page.items,
      ...(entry.channel.feeder && { feeder: entry.channel.feeder }),
      tombstones: entry.channel.tombstones,
      ...(page.nextCursor && { nextCursor: page.nextCursor }),
    };
  }

  /** Blocked edges by id, a page at a time: `{risks, nextCursor?}`. */
  risks(q: PageRequest): Promise<JsonBytes> {
    return this.answer(['risks', limitOf(q), q.cursor], (m) => this.riskPage(m, q));
  }

  private riskPage(m: AdminReadModel, q: PageRequest): string {
    let start = 0;
    if (q.cursor) {
      const [after] = decodeCursor<[string]>('risks', q.cursor, ['string']);
      start = firstIndex(m.risks, (e) => e.id > after);
    }
    const page = pageOf(
      m.risks,
      start,
      limitOf(q),
      (e: BlockedEdge) => m.riskJson(e),
      (e) => encodeCursor('risks', [e.id]),
    );
    return pageJson('risks', page);
  }

  /** Newest first, a page at a time; `since` is a date-time. */
  async audit(q: { since?: string; actor?: string } & PageRequest): Promise<AuditPage> {
    const since = q.since === undefined ? undefined : new Date(q.since);
    if (since && Number.isNaN(since.getTime()))
      throw new ApiError('invalid_request', `querystring/since: '${q.since}' is not a time`);
    const before = q.cursor === undefined ? undefined : decodeCursor<[number]>('audit', q.cursor, ['number'])[0];
    // An entry's id: a whole number both engines store (PostgreSQL's is four bytes).
    if (before !== undefined && !(Number.isInteger(before) && before > 0 && before <= MAX_AUDIT_ID)) throw badCursor();
    const limit = limitOf(q);
    const entries = await this.store.read((tx) =>
      tx.audit.list({ since: since?.toISOString(), actor: q.actor, before, limit: limit + 1 }),
    );
    if (entries.length <= limit) return { entries };
    entries.length = limit;
    return { entries, nextCursor: encodeCursor('audit', [entries[limit - 1]!.id]) };
  }

  /** The state as a graph-data .tar.gz (importable by cincy import), made again only after a write. */
  graphDataTarball(): Promise<GraphDataTarball> {
    return this.graph.exportTarball();
  }
}

/** A channel as the API shows it: its versions with the time each entered it. */
export async function channelDoc(tx: StoreTx, c: Channel): Promise<ChannelDoc> {
  const kind = channelKind(c);
  return {
    name: c.name,
    kind,
    versions: await tx.channels.members(kind, c.name),
    ...(c.feeder && { feeder: c.feeder }),
    tombstones: c.tombstones,
  };
}
