// The fleet API's answers, from the clusters' records in the store and the graph served right now: the
// summary (clusters by channel, arch and version; stale, stranded, behind), the clusters themselves
// (filtered, each with the updates it is shown), the exposure to each risk, and the updates clusters
// were seen to take. Lists are paginated with the admin API's one scheme (admin/pagination.ts).
import { ApiError } from '../../errors.js';
import { compareVersions, isReleaseVersion } from '../../graph/version.js';
import { parseSingleUnitDuration } from '../../duration.js';
import type { Clock } from '../../clock.js';
import type { ClusterFilter, ClusterRecord, FleetGroup, ObservedUpdate } from '../../store/fleet.js';
import type { FleetQueries } from './fleetQueries.js';
import { SharedReads } from './sharedReads.js';
import { MAX_GROUPS_PER_RISK, type FleetSummary } from '../../schemas/fleet.js';
import type { ReportedClusterState } from '../../schemas/fleetReports.js';
import type { OutcomeRow, StoredReport } from '../../store/fleetReports.js';
import { decodeCursor, encodeCursor, limitOf, type PageRequest } from '../admin/pagination.js';
import type { GraphService } from '../graphService.js';
import type { GraphSnapshot } from '../snapshot.js';
import { fleetIndexOf, type RiskyUpdate, type FleetIndex, type Standing } from './fleetIndex.js';
import { isClusterId, type FleetRecorder } from './pollRecorder.js';
import type { KeptReport } from './reportedState.js';
import { FAILING_AFTER_MS, SILENT_AFTER_MS } from './reportedState.js';
import { reportedUpdate } from './reportIntake.js';

/** Rows and derived data kept at once (each up to the size of the fleet's groups or edges). */
const ROWS_KEPT = 16;

/** Silent longer than this (unless the request says otherwise), a cluster counts as stale. */
export const DEFAULT_STALE_AFTER = '24h';
/** How far back observed updates are summed up, unless the request says otherwise. */
export const DEFAULT_UPDATES_SINCE = '30d';
/** Entries of each `top` list of the summary. */
const TOP = 20;

export interface GroupStanding extends FleetGroup {
  stranded: Standing['stranded'];
  /** Clusters here are shown at least one recommended update. */
  behind: boolean;
  recommended: number;
  conditional: number;
}

export interface Tally {
  name: string;
  clusters: number;
}

export interface ClusterItem {
  id: string;
  channel: string;
  arch: string;
  version: string | null;
  firstSeen: string;
  lastSeen: string;
  versionSince: string;
  polls: number;
  stranded?: NonNullable<Standing['stranded']>;
  recommended: string[];
  conditional: RiskyUpdate[];
  history: Array<{ from: string; to: string; lastAtFrom: string; firstAtTo: string; suspicious?: true }>;
  reported?: ReportedClusterState;
}

export interface ClusterQuery extends PageRequest {
  channel?: string;
  arch?: string;
  version?: string;
  stranded?: boolean;
  exposedTo?: string;
  silentFor?: string;
  id?: string;
}

export interface RiskExposure {
  risk: string;
  clusters: number;
  groupCount: number;
  groups: Array<{ channel: string; arch: string; version: string; clusters: number; to: string[] }>;
}

export interface ObservedEdge {
  from: string;
  to: string;
  arch: string;
  started: number;
  completed: number;
  failing: number;
  silent: number;
  progressing: number;
  medianSeconds?: number;
  p90Seconds?: number;
}

export class FleetReads {
  /** The answers as sent (bytes), and the rows and derived data they are made of. */
  private readonly answers: SharedReads;
  private readonly shared: SharedReads;
  private readonly snapshotIds = new WeakMap<GraphSnapshot, number>();
  private snapshots = 0;

  constructor(
    /** The store reads behind the answers (on a worker thread for a SQLite file). */
    private readonly queries: FleetQueries,
    private readonly graph: GraphService,
    private readonly clock: Clock,
    /** This server's recorder; undefined with --no-fleet (what was recorded before is still read). */
    private readonly recorder: FleetRecorder | undefined,
    /** How ids are stored (hashed with --fleet-hash-ids, or not): the reports' intake stores them alike. */
    readonly storedId: (id: string) => Promise<string> = async (id) => id.toLowerCase(),
  ) {
    this.answers = new SharedReads(clock);
    // The rows are read strictly after a write: the answers made of them are the layer with the grace.
    this.shared = new SharedReads(clock, { maxKept: ROWS_KEPT, writeGrace: false });
  }

  /**
   * An answer as the routes send it (serialized), shared by the callers that ask for the same (`key`: the
   * URL) on the same graph while it is kept (sharedReads.ts).
   */
  answer<T>(key: string, make: () => Promise<T>): Promise<T> {
    return this.answers.get(`${key} ${this.snapshotId(this.graph.served())}`, make);
  }

  /** What is kept is read again: this service wrote the fleet (polls flushed, a report stored). */
  forget(): void {
    this.answers.forget();
    this.shared.forget();
  }

  async summary(q: PageRequest & { staleAfter?: string }): Promise<FleetSummary> {
    const staleAfter = q.staleAfter ?? DEFAULT_STALE_AFTER;
    const staleBefore = this.clock.now() - durationParam('staleAfter', staleAfter);
    const snapshot = this.graph.served();
    // The groups in order with their standing, made once for all the callers of a while (sharedReads.ts).
    const { standings, totals, counts, reporting } = await this.shared.get(
      `summary ${staleAfter} ${this.snapshotId(snapshot)}`,
      async () => {
        const rows = await this.queries.summaryRows(staleBefore);
        const index = fleetIndexOf(snapshot);
        const standings = rows.groups
          .map((g) => standingOf(index, g))
          .sort((a, b) => compareGroup(a, [b.channel, b.arch, b.version ?? '']));
        const sum = (pick: (g: GroupStanding) => boolean): number =>
          standings.reduce((n, g) => n + (pick(g) ? g.clusters : 0), 0);
        const totals = {
          clusters: sum(() => true),
          stale: standings.reduce((n, g) => n + g.stale, 0),
          stranded: sum((g) => g.stranded !== undefined),
          behind: sum((g) => g.behind),
          versionUnknown: sum((g) => g.version === null),
          staleAfter,
          top: {
            channels: tally(standings, (g) => g.channel),
            arches: tally(standings, (g) => g.arch),
            versions: tally(standings, (g) => g.version ?? ''),
          },
        };
        return { standings, totals, counts: rows.counts, reporting: rows.reporting };
      },
    );
    const after = q.cursor
      ? decodeCursor<[string, string, string]>('fleet-groups', q.cursor, ['string', 'string', 'string'])
      : undefined;
    const from = after ? standings.findIndex((g) => compareGroup(g, after) > 0) : 0;
    const limit = limitOf(q);
    const page = from < 0 ? [] : standings.slice(from, from + limit);
    const more = from >= 0 && from + limit < standings.length;
    const last = page.at(-1);
    return {
      ...totals,
      polls: {
        noId: counts.noId ?? 0,
        malformed: counts.malformed ?? 0,
        batchFull: counts.batchFull ?? 0,
        overCap: counts.overCap ?? 0,
        evicted: counts.evicted ?? 0,
        implausibleMoves: counts.implausibleMoves ?? 0,
      },
      recording: this.recorder !== undefined,
      reporting,
      groups: page,
      ...(more && last && { nextCursor: encodeCursor('fleet-groups', [last.channel, last.arch, last.version ?? '']) }),
    };
  }

  async clusters(q: ClusterQuery): Promise<{ clusters: ClusterItem[]; nextCursor?: string }> {
    const index = fleetIndexOf(this.graph.served());
    const filter: ClusterFilter = { channel: q.channel, arch: q.arch, version: q.version };
    if (q.silentFor !== undefined) filter.silentSince = this.clock.now() - durationParam('silentFor', q.silentFor);
    if (q.id !== undefined) {
      if (!isClusterId(q.id)) throw new ApiError('invalid_request', 'querystring/id: not a cluster id (a UUID)');
      filter.id = await this.storedId(q.id);
    }
    if (q.cursor) filter.after = decodeCursor<[string]>('fleet-clusters', q.cursor, ['string'])[0];
    const limit = limitOf(q);
    if (q.stranded !== undefined || q.exposedTo !== undefined) {
      const groups = await this.groups();
      filter.groups = groups.filter((g) => {
        const s = index.standing(g.channel, g.arch, g.version);
        if (q.stranded !== undefined && (s.stranded !== undefined) !== q.stranded) return false;
        if (q.exposedTo !== undefined && !s.conditional.some((c) => c.risks.includes(q.exposedTo!))) return false;
        return true;
      });
    }
    const { rows, history, reports, outcomes } = await this.queries.clusterPage(filter, limit + 1, limit);
    const page = rows.slice(0, limit);
    const now = this.clock.now();
    const clusters = page.map((r) => {
      const item = clusterItem(r, index.standing(r.channel, r.arch, r.version), history.get(r.id)!);
      const report = reports.get(r.id);
      return report ? { ...item, reported: reportedState(report, outcomes.get(r.id)![0], r.lastSeen, now) } : item;
    });
    const last = page.at(-1);
    return {
      clusters,
      ...(rows.length > limit && last && { nextCursor: encodeCursor('fleet-clusters', [last.id]) }),
    };
  }

  /**
   * For each risk, the clusters shown it on a conditional update now, by group (the largest
   * MAX_GROUPS_PER_RISK; `groupCount` says how many there are), in one channel and arch if asked.
   */
  async exposure(
    q: PageRequest & { risk?: string; channel?: string; arch?: string },
  ): Promise<{ risks: RiskExposure[]; nextCursor?: string }> {
    const snapshot = this.graph.served();
    const all = await this.shared.get(`exposure ${this.snapshotId(snapshot)}`, async () =>
      exposureOf(fleetIndexOf(snapshot), await this.queries.groups()),
    );
    const risks: RiskExposure[] = [];
    for (const [risk, groups] of all) {
      if (q.risk !== undefined && risk !== q.risk) continue;
      const here = groups.filter(
        (g) => (q.channel === undefined || g.channel === q.channel) && (q.arch === undefined || g.arch === q.arch),
      );
      if (here.length === 0) continue;
      risks.push({
        risk,
        clusters: here.reduce((n, g) => n + g.clusters, 0),
        groupCount: here.length,
        groups: here.slice(0, MAX_GROUPS_PER_RISK),
      });
    }
    return keysetPage(risks, q, 'fleet-exposure', (r) => r.risk, 'risks');
  }

  /**
   * The updates clusters were seen to start since `since`, per edge and arch: how many started (by polls
   * or reports), where the reported ones stand, and how long the completed ones took.
   */
  async updates(
    q: PageRequest & { since?: string },
  ): Promise<{ updates: ObservedEdge[]; since: string; nextCursor?: string }> {
    const since = q.since ?? DEFAULT_UPDATES_SINCE;
    const from = this.clock.now() - durationParam('since', since);
    const now = this.clock.now();
    const clock = { silentBefore: now - SILENT_AFTER_MS, timeoutBefore: now - FAILING_AFTER_MS };
    const { started, outcomes } = await this.shared.get(`updates ${since}`, () => this.queries.updateRows(from, clock));
    const key = (e: { from: string; to: string; arch: string }): string => `${e.from} ${e.to} ${e.arch}`;
    const reported = new Map(outcomes.map((o) => [key(o), o]));
    const edges = started
      .map((e): ObservedEdge => {
        const o = reported.get(key(e));
        return {
          ...e,
          ...(o?.states ?? { progressing: 0, completed: 0, failing: 0, silent: 0 }),
          ...(o?.medianMs !== undefined && { medianSeconds: o.medianMs / 1000, p90Seconds: o.p90Ms! / 1000 }),
        };
      })
      .sort((a, b) => (key(a) < key(b) ? -1 : 1));
    const page = keysetPage(edges, q, 'fleet-updates', key, 'updates');
    return { ...page, since };
  }

  /** A number for each snapshot served, so that what is derived from one is not taken for another's. */
  private snapshotId(snapshot: GraphSnapshot): number {
    let id = this.snapshotIds.get(snapshot);
    if (id === undefined) this.snapshotIds.set(snapshot, (id = ++this.snapshots));
    return id;
  }

  /** The clusters by channel, arch and version, for the stranded filter. */
  private groups(): Promise<FleetGroup[]> {
    return this.shared.get('groups', () => this.queries.groups());
  }
}

type ExposedGroup = RiskExposure['groups'][number];

/** For each risk (by name), every group shown it on a conditional update, the largest first. */
function exposureOf(index: FleetIndex, groups: readonly FleetGroup[]): Array<[string, ExposedGroup[]]> {
  const byRisk = new Map<string, ExposedGroup[]>();
  for (const g of groups) {
    if (g.version === null) continue;
    const to = new Map<string, string[]>();
    for (const c of index.standing(g.channel, g.arch, g.version).conditional)
      for (const risk of c.risks) {
        const versions = to.get(risk);
        if (versions) versions.push(c.version);
        else to.set(risk, [c.version]);
      }
    for (const [risk, versions] of to) {
      const exposed = { channel: g.channel, arch: g.arch, version: g.version, clusters: g.clusters, to: versions };
      const list = byRisk.get(risk);
      if (list) list.push(exposed);
      else byRisk.set(risk, [exposed]);
    }
  }
  return [...byRisk]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([risk, exposed]) => [risk, exposed.sort((a, b) => b.clusters - a.clusters)]);
}

/** A cluster's last report as the fleet shows it, with its newest update and where that stands now. */
function reportedState(
  stored: StoredReport,
  newest: OutcomeRow | undefined,
  lastPolled: number,
  now: number,
): ReportedClusterState {
  const kept = JSON.parse(stored.summary) as KeptReport;
  const lastHeard = Math.max(stored.reportedAt, lastPolled);
  return {
    reportedAt: new Date(stored.reportedAt).toISOString(),
    ...kept,
    ...(newest && { update: reportedUpdate(newest, lastHeard, now) }),
  };
}

/** A duration parameter (`90s`, `30m`, `24h`, `7d`) in milliseconds; a 400 naming it otherwise. */
function durationParam(name: string, value: string): number {
  const ms = parseSingleUnitDuration(value);
  if (ms === undefined || ms <= 0)
    throw new ApiError(
      'invalid_request',
      `querystring/${name}: '${value.slice(0, 40)}' is not a duration (90s, 30m, 24h, 7d)`,
    );
  return ms;
}

function standingOf(index: FleetIndex, g: FleetGroup): GroupStanding {
  const s = index.standing(g.channel, g.arch, g.version);
  return {
    ...g,
    stranded: s.stranded,
    behind: s.recommended.length > 0,
    recommended: s.recommended.length,
    conditional: s.conditional.length,
  };
}

/** Groups by channel and arch as text, then by version as versions (4.16.3 before 4.16.20); '' and names that are no release last. */
function compareGroup(g: FleetGroup, key: [string, string, string]): number {
  const a = [g.channel, g.arch];
  for (let i = 0; i < 2; i++) if (a[i] !== key[i]) return a[i]! < key[i]! ? -1 : 1;
  return compareVersionNames(g.version ?? '', key[2]);
}

/** Releases in semver order, before any other name (none given, '(not served)'), those by text. */
export function compareVersionNames(a: string, b: string): number {
  const ra = isReleaseVersion(a);
  const rb = isReleaseVersion(b);
  if (ra && rb) return compareVersions(a, b) || (a < b ? -1 : a > b ? 1 : 0);
  if (ra !== rb) return ra ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function tally(groups: GroupStanding[], name: (g: GroupStanding) => string): Tally[] {
  const counts = new Map<string, number>();
  for (const g of groups) counts.set(name(g), (counts.get(name(g)) ?? 0) + g.clusters);
  return [...counts]
    .map(([n, clusters]) => ({ name: n, clusters }))
    .sort((a, b) => b.clusters - a.clusters || (a.name < b.name ? -1 : 1))
    .slice(0, TOP);
}

function clusterItem(r: ClusterRecord, s: Standing, history: ObservedUpdate[]): ClusterItem {
  const iso = (ms: number): string => new Date(ms).toISOString();
  return {
    id: r.id,
    channel: r.channel,
    arch: r.arch,
    version: r.version,
    firstSeen: iso(r.firstSeen),
    lastSeen: iso(r.lastSeen),
    versionSince: iso(r.versionSince),
    polls: r.polls,
    ...(s.stranded && { stranded: s.stranded }),
    recommended: s.recommended,
    conditional: s.conditional,
    history: history.map((h) => ({
      from: h.from,
      to: h.to,
      lastAtFrom: iso(h.lastAtFrom),
      firstAtTo: iso(h.firstAtTo),
      ...(h.suspicious && { suspicious: true as const }),
    })),
  };
}

/** A page of a list sorted by a string key, after the key a cursor holds. */
function keysetPage<T, F extends string>(
  sorted: T[],
  q: PageRequest,
  list: string,
  key: (item: T) => string,
  field: F,
): { [K in F]: T[] } & { nextCursor?: string } {
  const after = q.cursor ? decodeCursor<[string]>(list, q.cursor, ['string'])[0] : undefined;
  const start = after === undefined ? 0 : sorted.findIndex((item) => key(item) > after);
  const limit = limitOf(q);
  const items = start < 0 ? [] : sorted.slice(start, start + limit);
  const more = start >= 0 && start + limit < sorted.length;
  return {
    [field]: items,
    ...(more && items.length > 0 && { nextCursor: encodeCursor(list, [key(items.at(-1)!)]) }),
  } as { [K in F]: T[] } & { nextCursor?: string };
}
