// The admin API's reads: releases (filtered, in semver order, paginated by cursor; one release with
// its channels, risks, signatures and whether it is served), channels, risks, the audit log, and
// the whole state as a graph-data tarball, made once per store generation.
import { ApiError } from '../../errors.js';
import { payloadDigest, type BlockedEdge, type Channel, type Release } from '../../graph/model.js';
import { compareVersions, isReleaseVersion } from '../../graph/version.js';
import type { ChannelDoc, ChannelKind, ReleaseDetail, ReleaseList, ReleaseListQuery } from '../../schemas/admin.js';
import { releaseRecord, type GraphDataTarball } from '../../sources/export.js';
import type { AuditEntry } from '../../store/audit.js';
import { channelKind } from '../../store/channels.js';
import type { StoredSignature } from '../../store/signatures.js';
import type { Store } from '../../store/store.js';
import type { GraphService } from '../graphService.js';
import { signatureDoc } from './signatures.js';

export class AdminQueries {
  constructor(
    private readonly store: Store,
    private readonly graph: GraphService,
  ) {}

  /** Releases sorted by version then arch, a page at a time; `nextCursor` when there is more. */
  releases(q: ReleaseListQuery): ReleaseList {
    let list = this.store.releases.all();
    if (q.arch) list = list.filter((r) => r.arch === q.arch);
    if (q.version) {
      const v = q.version;
      list = list.filter((r) => (v.endsWith('*') ? r.version.startsWith(v.slice(0, -1)) : r.version === v));
    }
    if (q.channel) {
      const channel = this.store.channels.get('public', q.channel) ?? this.store.channels.get('internal', q.channel);
      if (!channel) throw new ApiError('does_not_exist', `no channel ${q.channel}`);
      const names = new Set(channel.versions);
      list = list.filter((r) => names.has(r.version) || names.has(`${r.version}+${r.arch}`));
    }
    list.sort((a, b) => compareVersions(a.version, b.version) || (a.arch < b.arch ? -1 : a.arch > b.arch ? 1 : 0));
    let start = 0;
    if (q.cursor) {
      const after = decodeCursor(q.cursor);
      start = list.findIndex(
        (r) => compareVersions(r.version, after.version) > 0 || (r.version === after.version && r.arch > after.arch),
      );
      if (start < 0) start = list.length;
    }
    const limit = q.limit ?? 100;
    const page = list.slice(start, start + limit);
    const last = page[page.length - 1];
    return {
      releases: page.map(releaseRecord),
      ...(start + limit < list.length && last && { nextCursor: encodeCursor(last) }),
    };
  }

  /** One release with the channels it is in (and since when), its risks and signatures, and whether it is served. */
  release(arch: string, version: string): ReleaseDetail {
    const release = this.store.releases.get(arch, version);
    if (!release) throw new ApiError('does_not_exist', `no release ${version} for ${arch}`);
    const channels: ReleaseDetail['channels'] = [];
    for (const c of this.store.channels.all()) {
      const entry = [version, `${version}+${arch}`].find((v) => c.versions.includes(v));
      const since = entry && this.store.channels.memberSince(channelKind(c), c.name, entry);
      if (since) channels.push({ name: c.name, kind: channelKind(c), addedAt: since.toISOString() });
    }
    const risks = this.store.blockedEdges.all().filter((e) => e.to === version || e.to === `${version}+${arch}`);
    const stored = this.store.signatures.list(payloadDigest(release.payload));
    const withheld = this.graph.withheld(release, stored);
    return {
      release: releaseRecord(release),
      channels,
      risks,
      signatures: stored.map(signatureDoc),
      served: withheld === undefined,
      ...(withheld && { withheldBecause: withheld }),
    };
  }

  /** Signature `n` of a payload digest, as stored. */
  signature(digest: string, n: number): StoredSignature | undefined {
    return this.store.signatures.get(digest, n);
  }

  channels(kind: ChannelKind): ChannelDoc[] {
    return this.store.channels
      .all()
      .filter((c) => channelKind(c) === kind)
      .map((c) => channelDoc(this.store, c));
  }

  /** A channel with the time each version entered it. */
  channel(kind: ChannelKind, name: string): ChannelDoc {
    const c = this.store.channels.get(kind, name);
    if (!c) throw new ApiError('does_not_exist', `no ${kind} channel ${name}`);
    return channelDoc(this.store, c);
  }

  risks(): BlockedEdge[] {
    return this.store.blockedEdges.all();
  }

  /** Newest first; `since` is a date-time. */
  audit(q: { since?: string; actor?: string; limit?: number }): AuditEntry[] {
    const since = q.since === undefined ? undefined : new Date(q.since);
    if (since && Number.isNaN(since.getTime()))
      throw new ApiError('invalid_params', `invalid client parameters: since '${q.since}' is not a time`);
    return this.store.audit.list({ ...q, since: since?.toISOString() });
  }

  /** The state as a graph-data .tar.gz (importable by cincy import), made again only after a write. */
  graphDataTarball(): Promise<GraphDataTarball> {
    return this.graph.exportTarball();
  }
}

const encodeCursor = (r: Release): string => Buffer.from(JSON.stringify([r.version, r.arch])).toString('base64url');

function decodeCursor(cursor: string): { version: string; arch: string } {
  const refused = new ApiError('invalid_params', 'invalid client parameters: cursor is not one this server gave');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch (err) {
    if (err instanceof SyntaxError) throw refused;
    throw err;
  }
  const [version, arch] = Array.isArray(decoded) ? (decoded as unknown[]) : [];
  if (typeof version !== 'string' || typeof arch !== 'string' || !isReleaseVersion(version)) throw refused;
  return { version, arch };
}

/** A channel as the API shows it: its versions with the time each entered it. */
export function channelDoc(store: Store, c: Channel): ChannelDoc {
  const kind = channelKind(c);
  return {
    name: c.name,
    kind,
    versions: store.channels.members(kind, c.name),
    ...(c.feeder && { feeder: c.feeder }),
    tombstones: c.tombstones,
  };
}
