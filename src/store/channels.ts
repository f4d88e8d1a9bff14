// Channels, public and internal, with the time each version entered each channel.
import type { Channel, ChannelPhasing } from '../graph/model.js';
import type { ChannelKind } from '../schemas/admin.js';
import type { Feeder } from '../schemas/graphData.js';
import { insertRows, type Sql } from './sql.js';
import type { UpsertOutcome } from './releases.js';

export const channelKind = (c: Pick<Channel, 'internal'>): ChannelKind => (c.internal ? 'internal' : 'public');

/** A channel, by kind and name. */
export interface ChannelRef {
  kind: ChannelKind;
  name: string;
}

export interface ChannelMember {
  kind: ChannelKind;
  channel: string;
  version: string;
  position: number;
  addedAt: string;
}

interface ChannelRow {
  kind: ChannelKind;
  name: string;
  feeder: string | null;
  tombstones: string;
  phasing: string | null;
}

export class ChannelRepository {
  constructor(private readonly sql: Sql) {}

  async all(): Promise<Channel[]> {
    return (await this.allWithMembers()).channels;
  }

  async get(kind: ChannelKind, name: string): Promise<Channel | undefined> {
    return (await this.withPositions(kind, name))?.channel;
  }

  /** A channel, and the position of each of its members (the order of a channel). */
  private async withPositions(
    kind: ChannelKind,
    name: string,
  ): Promise<{ channel: Channel; positions: Map<string, number> } | undefined> {
    const rows = await this.sql.all<ChannelRow>(
      'SELECT kind, name, feeder, tombstones, phasing FROM channels WHERE kind = ? AND name = ?',
      [kind, name],
    );
    if (!rows.length) return undefined;
    const members = await this.sql.all<{ version: string; position: number }>(
      'SELECT version, position FROM channel_versions WHERE kind = ? AND channel = ? ORDER BY position',
      [kind, name],
    );
    const channel = channelsOf(
      rows,
      members.map((m) => ({ kind, channel: name, version: m.version })),
    )[0]!;
    return { channel, positions: new Map(members.map((m) => [m.version, Number(m.position)])) };
  }

  /** Creates or replaces a channel; versions already members keep the time they were added. */
  async upsert(c: Channel, at: string): Promise<UpsertOutcome> {
    const kind = channelKind(c);
    const read = await this.withPositions(kind, c.name);
    const before = read?.channel;
    const unique = [...new Set(c.versions)];
    const feeder = c.feeder ? JSON.stringify(c.feeder) : null;
    const phasing = c.phasing ? JSON.stringify(c.phasing) : null;
    if (
      before &&
      JSON.stringify([before.versions, before.feeder ?? null, before.tombstones, before.phasing ?? null]) ===
        JSON.stringify([unique, c.feeder ?? null, c.tombstones, c.phasing ?? null])
    )
      return 'unchanged';
    await this.sql.run(
      'INSERT INTO channels (kind, name, feeder, tombstones, phasing, updated_at) VALUES (?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (kind, name) DO UPDATE SET feeder = excluded.feeder, tombstones = excluded.tombstones, ' +
        'phasing = excluded.phasing, updated_at = excluded.updated_at',
      [kind, c.name, feeder, JSON.stringify(c.tombstones), phasing, at],
    );
    // Only the members that left, came or moved are written.
    const stored = read?.positions ?? new Map<string, number>();
    const kept = new Set(unique);
    for (const version of stored.keys())
      if (!kept.has(version))
        await this.sql.run('DELETE FROM channel_versions WHERE kind = ? AND channel = ? AND version = ?', [
          kind,
          c.name,
          version,
        ]);
    const put = unique.flatMap((v, i) => (stored.get(v) === i ? [] : [[kind, c.name, v, i, at]]));
    await insertRows(
      this.sql,
      'channel_versions',
      ['kind', 'channel', 'version', 'position', 'added_at'],
      put,
      'ON CONFLICT (kind, channel, version) DO UPDATE SET position = excluded.position',
    );
    return before ? 'changed' : 'added';
  }

  /** The versions of a channel in order, with the time each entered it. */
  async members(kind: ChannelKind, name: string): Promise<Array<{ version: string; addedAt: string }>> {
    return this.sql.all(
      'SELECT version, added_at AS "addedAt" FROM channel_versions WHERE kind = ? AND channel = ? ORDER BY position',
      [kind, name],
    );
  }

  /** Every channel, and every member with the time it entered and its position (the order of a channel). */
  async allWithMembers(): Promise<{ channels: Channel[]; members: ChannelMember[] }> {
    // Rows as arrays, made into objects here: faster than rows as objects for ~20,000 of them.
    const rows = await this.sql.rows<[ChannelKind, string, string, number, string]>(
      'SELECT kind, channel, version, position, added_at FROM channel_versions ORDER BY kind, channel, position',
    );
    const members = rows.map(([kind, channel, version, position, addedAt]) => ({
      kind,
      channel,
      version,
      position: Number(position),
      addedAt,
    }));
    const channelRows = await this.sql.all<ChannelRow>(
      'SELECT kind, name, feeder, tombstones, phasing FROM channels ORDER BY kind, name',
    );
    return { channels: channelsOf(channelRows, members), members };
  }

  /** When a version entered a channel, if it is a member. */
  async memberSince(kind: ChannelKind, name: string, version: string): Promise<Date | undefined> {
    const row = await this.sql.get<{ added_at: string }>(
      'SELECT added_at FROM channel_versions WHERE kind = ? AND channel = ? AND version = ?',
      [kind, name, version],
    );
    return row && new Date(row.added_at);
  }

  /** Adds one version at the end; false when it was already a member. */
  async addVersion(kind: ChannelKind, name: string, version: string, at: string): Promise<boolean> {
    const next = await this.sql.get<{ p: number }>(
      'SELECT coalesce(max(position) + 1, 0) AS p FROM channel_versions WHERE kind = ? AND channel = ?',
      [kind, name],
    );
    const added = await this.sql.run(
      'INSERT INTO channel_versions (kind, channel, version, position, added_at) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (kind, channel, version) DO NOTHING',
      [kind, name, version, Number(next!.p), at],
    );
    if (added > 0) await this.touch(kind, name, at);
    return added > 0;
  }

  /** Removes a version and, with `tombstone`, records it so promotion never adds it again. */
  async removeVersion(
    kind: ChannelKind,
    name: string,
    version: string,
    at: string,
    tombstone: boolean,
  ): Promise<boolean> {
    const removed =
      (await this.sql.run('DELETE FROM channel_versions WHERE kind = ? AND channel = ? AND version = ?', [
        kind,
        name,
        version,
      ])) > 0;
    if (tombstone) {
      const c = await this.get(kind, name);
      if (c && !c.tombstones.includes(version))
        await this.sql.run('UPDATE channels SET tombstones = ? WHERE kind = ? AND name = ?', [
          JSON.stringify([...c.tombstones, version]),
          kind,
          name,
        ]);
    }
    if (removed) await this.touch(kind, name, at);
    return removed;
  }

  /** Replaces the tombstones of a channel that exists. */
  async setTombstones(kind: ChannelKind, name: string, tombstones: string[], at: string): Promise<void> {
    await this.sql.run('UPDATE channels SET tombstones = ?, updated_at = ? WHERE kind = ? AND name = ?', [
      JSON.stringify(tombstones),
      at,
      kind,
      name,
    ]);
  }

  async delete(kind: ChannelKind, name: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM channels WHERE kind = ? AND name = ?', [kind, name])) > 0;
  }

  private async touch(kind: ChannelKind, name: string, at: string): Promise<void> {
    await this.sql.run('UPDATE channels SET updated_at = ? WHERE kind = ? AND name = ?', [at, kind, name]);
  }
}

/** Channels from their rows and their members' rows (each channel's members in channel order). */
function channelsOf(rows: ChannelRow[], members: Array<{ kind: ChannelKind; channel: string; version: string }>) {
  const byChannel = new Map<string, string[]>();
  for (const m of members) {
    const key = `${m.kind}/${m.channel}`;
    const list = byChannel.get(key);
    if (list) list.push(m.version);
    else byChannel.set(key, [m.version]);
  }
  return rows.map((r) => {
    const c: Channel = {
      name: r.name,
      internal: r.kind === 'internal',
      versions: byChannel.get(`${r.kind}/${r.name}`) ?? [],
      tombstones: JSON.parse(r.tombstones) as string[],
    };
    if (r.feeder) c.feeder = JSON.parse(r.feeder) as Feeder;
    if (r.phasing) c.phasing = JSON.parse(r.phasing) as ChannelPhasing;
    return c;
  });
}
