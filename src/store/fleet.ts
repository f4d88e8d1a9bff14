// The fleet as the store keeps it: each cluster's record (channel, arch, version, first and last seen),
// the updates clusters were seen to take, and the counts every replica adds to. The poll recorder
// (app/fleet/pollRecorder.ts) writes a batch of polls at a time; the fleet reads (app/fleet/) ask here.
// Times are milliseconds since 1970.
import { compareVersions } from '../graph/version.js';
import { UNSERVED, UPDATES_PER_CLUSTER } from '../schemas/fleet.js';
import { insertRows, type Sql, type SqlValue } from './sql.js';

/**
 * A record seen over less than this (ms) is on probation: at the cap, such clusters make room first. A
 * real cluster polls every few minutes and leaves probation soon; ids that poll once never do.
 */
export const PROBATION_MS = 600_000;

/**
 * Whether a cluster seen at `from` and then at `to`, on `arch` both times, can have taken an update: both
 * are releases the server serves, on an arch it serves, and `to` is newer. Anything else (a version
 * outside the graph, a downgrade) is not counted as an update; a change across arches never gets here
 * (the recorder and `merged` mark or drop it).
 */
export function isPlausibleUpdate(from: string, to: string, arch: string): boolean {
  if (from === UNSERVED || to === UNSERVED || arch === UNSERVED) return false;
  try {
    return compareVersions(from, to) < 0;
  } catch {
    return false; // not a semantic version: not a release of the graph
  }
}

/** What one flush knows of a cluster: its polls since the last flush, summed up. */
export interface PolledCluster {
  id: string;
  channel: string;
  arch: string;
  /** The version of its first and of its last poll in the batch (undefined: the polls named none). */
  firstVersion: string | undefined;
  version: string | undefined;
  firstSeen: number;
  lastSeen: number;
  /** Its first poll at `version` in the batch. */
  versionSince: number;
  polls: number;
  /** Updates taken within the batch itself, in order. */
  moves: ObservedUpdate[];
}

export interface ObservedUpdate {
  from: string;
  to: string;
  lastAtFrom: number;
  firstAtTo: number;
  /** Not plausible as an update (isPlausibleUpdate): kept as an observation, not counted as an update. */
  suspicious?: true;
}

export interface ClusterRecord {
  id: string;
  channel: string;
  arch: string;
  version: string | null;
  firstSeen: number;
  lastSeen: number;
  versionSince: number;
  polls: number;
}

/** The clusters on one channel, arch and version: how many, and how many of them are silent. */
export interface FleetGroup {
  channel: string;
  arch: string;
  version: string | null;
  clusters: number;
  stale: number;
}

export interface ClusterFilter {
  channel?: string;
  arch?: string;
  version?: string;
  /** Only clusters whose last poll is older than this time. */
  silentSince?: number;
  /** Only clusters in one of these groups (channel, arch, version): what stranded and exposedTo select. */
  groups?: ReadonlyArray<{ channel: string; arch: string; version: string | null }>;
  /** Only this cluster (the id as stored). */
  id?: string;
  /** Keyset: clusters whose id sorts after this one. */
  after?: string;
}

/**
 * How one flush went: clusters written, new ones, the least recently seen ones forgotten to make room
 * for them, new ones left out for the cap all the same, updates recorded, and version changes kept as
 * suspicious observations instead.
 */
export interface FlushOutcome {
  written: number;
  added: number;
  evicted: number;
  overCap: number;
  updates: number;
  implausible: number;
}

const CLUSTER_COLUMNS = ['id', 'channel', 'arch', 'version', 'first_seen', 'last_seen', 'version_since', 'polls'];
const SELECT_CLUSTER =
  'SELECT id, channel, arch, version, first_seen AS "firstSeen", last_seen AS "lastSeen", ' +
  'version_since AS "versionSince", polls FROM fleet_clusters';
/** Ids asked for at once in `IN (…)`. */
const IDS_PER_QUERY = 1000;

export class FleetRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Merges a batch of polls into the records, in the caller's write transaction: a cluster seen at
   * another version than its record's has taken an update (recorded with the time between its last
   * poll at the one and its first at the other), marked suspicious when it cannot be one
   * (isPlausibleUpdate) or starts from a version the cluster reached by a suspicious change. A batch
   * older than the record (another replica flushed later polls first) adds its polls and first
   * sighting but leaves the current state alone. New clusters past `room` (how many more the store may
   * hold) are not written: they are returned, for `admit` once the whole batch's known clusters are.
   */
  async merge(batch: readonly PolledCluster[], room: number): Promise<FlushOutcome & { waiting: PolledCluster[] }> {
    const outcome = { ...noFlush(), waiting: [] as PolledCluster[] };
    if (batch.length === 0) return outcome;
    const stored = await this.recordsOf(batch.map((c) => c.id));
    const moving = batch.filter((c) => c.moves.length > 0 || crosses(c, stored.get(c.id)));
    const latest = await this.latestUpdatesOf(moving.map((c) => c.id));
    const rows: SqlValue[][] = [];
    const updates: SqlValue[][] = [];
    for (const c of batch) {
      const before = stored.get(c.id);
      if (!before) {
        if (room <= 0) {
          outcome.waiting.push(c);
          continue;
        }
        room -= 1;
        outcome.added += 1;
      }
      const { record, moves } = merged(c, before);
      rows.push([
        record.id,
        record.channel,
        record.arch,
        record.version,
        record.firstSeen,
        record.lastSeen,
        record.versionSince,
        record.polls,
      ]);
      // A change from a version reached by a suspicious one (or by none recorded) is suspicious too.
      const last = latest.get(c.id);
      let suspect = last !== undefined && (last.suspicious || last.to !== before?.version);
      for (const m of moves) {
        suspect = suspect || m.suspicious === true || !isPlausibleUpdate(m.from, m.to, record.arch);
        outcome[suspect ? 'implausible' : 'updates'] += 1;
        updates.push([c.id, m.from, m.to, m.lastAtFrom, m.firstAtTo, record.channel, record.arch, suspect ? 1 : 0]);
      }
    }
    const set = CLUSTER_COLUMNS.slice(1)
      .map((col) => `${col} = excluded.${col}`)
      .join(', ');
    outcome.written = await insertRows(
      this.sql,
      'fleet_clusters',
      CLUSTER_COLUMNS,
      rows,
      `ON CONFLICT (id) DO UPDATE SET ${set}`,
    );
    await insertRows(
      this.sql,
      'fleet_updates',
      ['id', 'from_version', 'to_version', 'last_at_from', 'first_at_to', 'channel', 'arch', 'suspicious'],
      updates,
      'ON CONFLICT (id, first_at_to) DO NOTHING',
    );
    await this.keepNewestUpdates([...new Set(updates.map((u) => u[0] as string))]);
    return outcome;
  }

  /**
   * Writes new clusters that found no room (merge's `waiting`) in place of clusters not seen since
   * `since` (when the flush's batch began, so none the flush wrote): first those that polled once, then
   * those on probation (seen over less than PROBATION_MS), then the others (`evict`). Those that still
   * find no room are left out and counted.
   */
  async admit(waiting: readonly PolledCluster[], since: number): Promise<FlushOutcome> {
    if (waiting.length === 0) return noFlush();
    const evicted = await this.evict(waiting.length, since);
    const { waiting: left, ...outcome } = await this.merge(waiting, evicted);
    return { ...outcome, evicted, overCap: left.length };
  }

  /** The stored records of these ids, by id. */
  private async recordsOf(ids: string[]): Promise<Map<string, ClusterRecord>> {
    const stored = new Map<string, ClusterRecord>();
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const rows = await this.sql.all<ClusterRecord>(
        `${SELECT_CLUSTER} WHERE id IN (${this.listOf()})`,
        this.listParam(ids.slice(i, i + IDS_PER_QUERY)),
      );
      for (const r of rows) stored.set(r.id, numeric(r));
    }
    return stored;
  }

  /** The newest recorded change of each of these clusters that has one: its target and whether it was suspicious. */
  private async latestUpdatesOf(ids: string[]): Promise<Map<string, { to: string; suspicious: boolean }>> {
    const latest = new Map<string, { to: string; suspicious: boolean }>();
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
      const rows = await this.sql.rows<[string, string, number]>(
        `SELECT id, to_version, suspicious FROM fleet_updates u WHERE id IN (${this.listOf()}) ` +
          'AND first_at_to = (SELECT MAX(first_at_to) FROM fleet_updates WHERE id = u.id)',
        this.listParam(ids.slice(i, i + IDS_PER_QUERY)),
      );
      for (const [id, to, suspicious] of rows) latest.set(id, { to, suspicious: Number(suspicious) === 1 });
    }
    return latest;
  }

  /**
   * One statement text for a list of any length, bound as one parameter (prepared once on SQLite): a
   * JSON list there, an array on PostgreSQL. `listOf()` goes inside `IN (…)`.
   */
  private listOf(): string {
    return this.sql.engine === 'sqlite' ? 'SELECT value FROM json_each(?)' : 'SELECT unnest(?::text[])';
  }

  private listParam(values: string[]): SqlValue[] {
    return [this.sql.engine === 'sqlite' ? JSON.stringify(values) : (values as unknown as SqlValue)];
  }

  /**
   * Forgets up to `n` clusters not seen since `since`, in three tiers, each least recently seen first:
   * those that polled once (as ids made up for a flood do), those still on probation, then the rest.
   */
  private async evict(n: number, since: number): Promise<number> {
    // The conditions of the partial indexes of migration 009, written as they are there.
    const tiers = [
      `polls = 1`,
      `polls > 1 AND last_seen - first_seen < ${PROBATION_MS}`,
      `polls > 1 AND NOT (last_seen - first_seen < ${PROBATION_MS})`,
    ];
    const ids: string[] = [];
    for (const tier of tiers) {
      if (ids.length >= n) break;
      const rows = await this.sql.rows<[string]>(
        `SELECT id FROM fleet_clusters WHERE ${tier} AND last_seen < ? ORDER BY last_seen LIMIT ?`,
        [since, n - ids.length],
      );
      ids.push(...rows.map(([id]) => id));
    }
    if (ids.length === 0) return 0;
    await this.sql.run(`DELETE FROM fleet_updates WHERE id IN (${this.listOf()})`, this.listParam(ids));
    return this.sql.run(`DELETE FROM fleet_clusters WHERE id IN (${this.listOf()})`, this.listParam(ids));
  }

  /** Drops all but the newest UPDATES_PER_CLUSTER updates of these clusters, in one statement. */
  private async keepNewestUpdates(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql.run(
      'DELETE FROM fleet_updates WHERE (id, first_at_to) IN (SELECT id, first_at_to FROM (' +
        'SELECT id, first_at_to, ROW_NUMBER() OVER (PARTITION BY id ORDER BY first_at_to DESC) AS rn ' +
        `FROM fleet_updates WHERE id IN (${this.listOf()})) AS ranked WHERE rn > ?)`,
      [...this.listParam(ids), UPDATES_PER_CLUSTER],
    );
  }

  async count(): Promise<number> {
    const row = await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM fleet_clusters');
    return Number(row?.n ?? 0);
  }

  /** Forgets clusters silent since before `before`, and updates taken before it; returns the clusters forgotten. */
  async prune(before: number): Promise<number> {
    const clusters = await this.sql.run('DELETE FROM fleet_clusters WHERE last_seen < ?', [before]);
    await this.sql.run('DELETE FROM fleet_updates WHERE first_at_to < ?', [before]);
    return clusters;
  }

  /** Adds to named counts. */
  async addCounts(counts: Record<string, number>): Promise<void> {
    const rows = Object.entries(counts).filter(([, n]) => n > 0);
    await insertRows(
      this.sql,
      'fleet_counters',
      ['name', 'value'],
      rows,
      'ON CONFLICT (name) DO UPDATE SET value = fleet_counters.value + excluded.value',
    );
  }

  async counts(): Promise<Record<string, number>> {
    const rows = await this.sql.all<{ name: string; value: number }>('SELECT name, value FROM fleet_counters');
    return Object.fromEntries(rows.map((r) => [r.name, Number(r.value)]));
  }

  /** A value of the fleet's own (the hash key), or undefined. */
  async setting(name: string): Promise<string | undefined> {
    return (await this.sql.get<{ value: string }>('SELECT value FROM fleet_settings WHERE name = ?', [name]))?.value;
  }

  /** Keeps `value` unless a value is there already; returns the one kept. */
  async settingOnce(name: string, value: string): Promise<string> {
    await this.sql.run('INSERT INTO fleet_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [
      name,
      value,
    ]);
    return (await this.setting(name))!;
  }

  /**
   * Sets `name` to `value` only if it still holds `expected` (undefined: absent); false when another
   * writer changed it first, so of two replicas comparing the same state only one acts on it.
   */
  async compareAndSetSetting(name: string, expected: string | undefined, value: string): Promise<boolean> {
    const changed =
      expected === undefined
        ? await this.sql.run('INSERT INTO fleet_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [
            name,
            value,
          ])
        : await this.sql.run('UPDATE fleet_settings SET value = ? WHERE name = ? AND value = ?', [
            value,
            name,
            expected,
          ]);
    return changed === 1;
  }

  /** The clusters by channel, arch and version; `staleBefore`: a last poll before it counts as stale. */
  async groups(staleBefore: number): Promise<FleetGroup[]> {
    const rows = await this.sql.all<FleetGroup>(
      'SELECT channel, arch, version, COUNT(*) AS clusters, ' +
        'SUM(CASE WHEN last_seen < ? THEN 1 ELSE 0 END) AS stale ' +
        'FROM fleet_clusters GROUP BY channel, arch, version ORDER BY channel, arch, version',
      [staleBefore],
    );
    return rows.map((r) => ({ ...r, clusters: Number(r.clusters), stale: Number(r.stale) }));
  }

  /** Up to `limit` clusters passing the filter, by id. */
  async clusters(filter: ClusterFilter, limit: number): Promise<ClusterRecord[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const eq = (column: string, value: string | undefined): void => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      params.push(value);
    };
    eq('channel', filter.channel);
    eq('arch', filter.arch);
    eq('version', filter.version);
    eq('id', filter.id);
    if (filter.silentSince !== undefined) {
      where.push('last_seen < ?');
      params.push(filter.silentSince);
    }
    if (filter.after !== undefined) {
      where.push('id > ?');
      params.push(filter.after);
    }
    if (filter.groups) {
      if (filter.groups.length === 0) return [];
      // One parameter for any number of groups (a parameter each passed SQLite's limit of 32,766).
      const keys = filter.groups.map((g) => groupKey(g.channel, g.arch, g.version));
      where.push(`(channel || ' ' || arch || ' ' || COALESCE(version, '')) IN (${this.listOf()})`);
      params.push(...this.listParam(keys));
    }
    const rows = await this.sql.all<ClusterRecord>(
      `${SELECT_CLUSTER}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT ?`,
      [...params, limit],
    );
    return rows.map(numeric);
  }

  /** One cluster's updates, oldest first. */
  async historyOf(id: string): Promise<ObservedUpdate[]> {
    const rows = await this.sql.rows<[string, string, number, number, number]>(
      'SELECT from_version, to_version, last_at_from, first_at_to, suspicious FROM fleet_updates WHERE id = ? ' +
        'ORDER BY first_at_to',
      [id],
    );
    return rows.map(([from, to, lastAtFrom, firstAtTo, suspicious]) => ({
      from,
      to,
      lastAtFrom: Number(lastAtFrom),
      firstAtTo: Number(firstAtTo),
      ...(Number(suspicious) === 1 && { suspicious: true as const }),
    }));
  }
}

/** A cluster's record after a batch of its polls, and the moves the batch shows (its own and the one from the record). */
function merged(
  c: PolledCluster,
  before: ClusterRecord | undefined,
): { record: ClusterRecord; moves: ObservedUpdate[] } {
  if (before && c.lastSeen < before.lastSeen)
    return {
      record: { ...before, firstSeen: Math.min(before.firstSeen, c.firstSeen), polls: before.polls + c.polls },
      moves: [],
    };
  const moves = [...c.moves];
  if (before?.version && c.firstVersion && crosses(c, before)) {
    // Polled before at another version on another arch: what it claims now is no update of what it was.
    const move: ObservedUpdate = {
      from: before.version,
      to: c.firstVersion,
      lastAtFrom: before.lastSeen,
      firstAtTo: c.firstSeen,
    };
    moves.unshift(before.arch === c.arch ? move : { ...move, suspicious: true });
  }
  const version = c.version ?? before?.version ?? null;
  const moved = moves.length > 0 || !before || before.version !== version;
  return {
    record: {
      id: c.id,
      channel: c.channel,
      arch: c.arch,
      version,
      firstSeen: Math.min(before?.firstSeen ?? c.firstSeen, c.firstSeen),
      lastSeen: c.lastSeen,
      versionSince: moved ? c.versionSince : before.versionSince,
      polls: (before?.polls ?? 0) + c.polls,
    },
    moves,
  };
}

/** Whether the batch begins at another version than the record holds (a change across two flushes). */
const crosses = (c: PolledCluster, before: ClusterRecord | undefined): boolean =>
  !!before?.version && !!c.firstVersion && before.version !== c.firstVersion && c.lastSeen >= before.lastSeen;

const noFlush = (): FlushOutcome => ({ written: 0, added: 0, evicted: 0, overCap: 0, updates: 0, implausible: 0 });

/** The key of a group as the clusters query compares it: channel, arch and version, space-separated. */
export const groupKey = (channel: string, arch: string, version: string | null): string =>
  `${channel} ${arch} ${version ?? ''}`;

/** PostgreSQL's BIGINT arrives as a number already (postgresConnection.ts); SQLite's too. Kept explicit. */
function numeric(r: ClusterRecord): ClusterRecord {
  return {
    ...r,
    firstSeen: Number(r.firstSeen),
    lastSeen: Number(r.lastSeen),
    versionSince: Number(r.versionSince),
    polls: Number(r.polls),
  };
}
