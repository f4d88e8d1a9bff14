// What clusters report, as the store keeps it: the summary of each one's last report, and the updates
// its ClusterVersion history shows, with where each stands (completed, failing, silent, progressing)
// decided in the database so that no row of a large fleet comes out of it. Written by the reports route
// (app/fleet/fleetReports.ts), read by the fleet reads. Times are milliseconds since 1970.
import type { FleetUpdateState } from '../schemas/fleetReports.js';
import { insertRows, type Sql, type SqlValue } from './sql.js';

/** One update of a reporting cluster, as kept. */
export interface OutcomeRow {
  from: string;
  to: string;
  /** The cluster's clock, as its history says (its PK with the id). */
  startedAt: number;
  /** This service's clock: when it counts the update from (app/fleet/reportedState.ts: seenAtOf). */
  seenAt: number;
  completedAt: number | null;
  failingSince: number | null;
  failingReason: string | null;
}

export interface StoredReport {
  reportedAt: number;
  /** The summary, as JSON (app/fleet/reportedState.ts: KeptReport). */
  summary: string;
}

/** The moments that decide where an update stands (app/fleet/reportedState.ts: updateStateOf). */
export interface OutcomeClock {
  /** Neither reported nor polled since this: silent. */
  silentBefore: number;
  /** Started before this and not completed: failing (Timeout). */
  timeoutBefore: number;
}

/** The updates along one edge and arch: by where they stand, and how long the completed ones took (ms). */
export interface OutcomeStats {
  from: string;
  to: string;
  arch: string;
  states: Record<FleetUpdateState, number>;
  medianMs?: number;
  p90Ms?: number;
}

/** The arch of a reporting cluster that never polled (its polls name it; reports do not). */
export const UNKNOWN_ARCH = '(unknown)';

const OUTCOME_COLUMNS = [
  'id',
  'started_at',
  'seen_at',
  'position',
  'from_version',
  'to_version',
  'completed_at',
  'failing_since',
  'failing_reason',
];

/**
 * Where an update stands, in SQL, as updateStateOf decides it in app/fleet/reportedState.ts: `o` the
 * outcome, `r` its cluster's report, `c` its record of polls (maybe none). Parameters: silentBefore
 * twice, timeoutBefore.
 */
const STATE_OF =
  "CASE WHEN o.completed_at IS NOT NULL THEN 'completed' WHEN o.failing_since IS NOT NULL THEN 'failing' " +
  "WHEN r.reported_at < ? AND COALESCE(c.last_seen, 0) < ? THEN 'silent' " +
  "WHEN o.seen_at < ? THEN 'failing' ELSE 'progressing' END";

export class FleetReportRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Keeps a cluster's report: its summary in place of the last one, and its updates (newest first, as
   * its history lists them) in place of those kept, each keeping when it was first heard of. A report
   * older than the one kept (two replicas taking reports out of order) changes nothing; false then.
   */
  async put(id: string, reportedAt: number, summary: string, updates: readonly OutcomeRow[]): Promise<boolean> {
    const kept = await this.sql.run(
      'INSERT INTO fleet_reports (id, reported_at, summary) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET ' +
        'reported_at = excluded.reported_at, summary = excluded.summary ' +
        'WHERE fleet_reports.reported_at <= excluded.reported_at',
      [id, reportedAt, summary],
    );
    if (kept === 0) return false;
    // What the history no longer shows goes; the rest is updated in place.
    const starts = updates.map((u) => u.startedAt);
    await this.sql.run(
      `DELETE FROM fleet_outcomes WHERE id = ?${starts.length ? ` AND started_at NOT IN (${starts.map(() => '?').join(', ')})` : ''}`,
      [id, ...starts],
    );
    const rows: SqlValue[][] = updates.map((u, position) => [
      id,
      u.startedAt,
      u.seenAt,
      position,
      u.from,
      u.to,
      u.completedAt,
      u.failingSince,
      u.failingReason,
    ]);
    // When it was first heard of stays as it was.
    const set = OUTCOME_COLUMNS.slice(3)
      .map((col) => `${col} = excluded.${col}`)
      .join(', ');
    await insertRows(
      this.sql,
      'fleet_outcomes',
      OUTCOME_COLUMNS,
      rows,
      `ON CONFLICT (id, started_at) DO UPDATE SET ${set}`,
    );
    return true;
  }

  /** The last report of each of these clusters that reported, by id. */
  async reportsOf(ids: readonly string[]): Promise<Map<string, StoredReport>> {
    const found = new Map<string, StoredReport>();
    if (ids.length === 0) return found;
    const rows = await this.sql.rows<[string, number, string]>(
      `SELECT id, reported_at, summary FROM fleet_reports WHERE id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    for (const [id, reportedAt, summary] of rows) found.set(id, { reportedAt: Number(reportedAt), summary });
    return found;
  }

  /** One cluster's updates as its last report told them, newest first. */
  async outcomesOf(id: string): Promise<OutcomeRow[]> {
    const rows = await this.sql.rows<[string, string, number, number, number | null, number | null, string | null]>(
      'SELECT from_version, to_version, started_at, seen_at, completed_at, failing_since, failing_reason ' +
        'FROM fleet_outcomes WHERE id = ? ORDER BY position',
      [id],
    );
    return rows.map(([from, to, startedAt, seenAt, completedAt, failingSince, failingReason]) => ({
      from,
      to,
      startedAt: Number(startedAt),
      seenAt: Number(seenAt),
      completedAt: completedAt === null ? null : Number(completedAt),
      failingSince: failingSince === null ? null : Number(failingSince),
      failingReason,
    }));
  }

  /**
   * The reported updates counted from `since` or later (seen_at), per edge and arch (the arch the cluster's polls
   * name): how many stand where, and the median and p90 time from start to completion of those
   * completed (nearest rank: the ⌈q·n⌉-th smallest), ranked in the database.
   */
  async outcomeStats(since: number, clock: OutcomeClock): Promise<OutcomeStats[]> {
    const arch = `COALESCE(c.arch, '${UNKNOWN_ARCH}')`;
    // Each cluster counts once per edge, by its newest attempt at it.
    const joined =
      'FROM (SELECT * FROM (SELECT fo.*, ROW_NUMBER() OVER (PARTITION BY fo.id, fo.from_version, fo.to_version ' +
      'ORDER BY fo.position) AS attempt FROM fleet_outcomes fo WHERE fo.seen_at >= ?) AS attempts WHERE attempt = 1) AS o ' +
      'JOIN fleet_reports r ON r.id = o.id LEFT JOIN fleet_clusters c ON c.id = o.id';
    const counts = await this.sql.rows<[string, string, string, FleetUpdateState, number]>(
      `SELECT f, t, a, s, COUNT(*) FROM (SELECT o.from_version AS f, o.to_version AS t, ${arch} AS a, ` +
        `${STATE_OF} AS s ${joined}) AS classified GROUP BY f, t, a, s`,
      [clock.silentBefore, clock.silentBefore, clock.timeoutBefore, since],
    );
    // A completion before its start (a clock set back) has no duration to give.
    const durations = await this.sql.rows<[string, string, string, number, number]>(
      'SELECT f, t, a, MAX(CASE WHEN rn = (n + 1) / 2 THEN ms END), MAX(CASE WHEN rn = (9 * n + 9) / 10 THEN ms END) ' +
        `FROM (SELECT o.from_version AS f, o.to_version AS t, ${arch} AS a, o.completed_at - o.started_at AS ms, ` +
        `ROW_NUMBER() OVER (PARTITION BY o.from_version, o.to_version, ${arch} ORDER BY o.completed_at - o.started_at) AS rn, ` +
        `COUNT(*) OVER (PARTITION BY o.from_version, o.to_version, ${arch}) AS n ` +
        `${joined} WHERE o.completed_at >= o.started_at) AS ranked GROUP BY f, t, a, n`,
      [since],
    );
    const stats = new Map<string, OutcomeStats>();
    for (const [from, to, a, state, n] of counts) {
      const key = `${from} ${to} ${a}`;
      let s = stats.get(key);
      if (!s)
        stats.set(key, (s = { from, to, arch: a, states: { progressing: 0, completed: 0, failing: 0, silent: 0 } }));
      s.states[state] += Number(n);
    }
    for (const [from, to, a, medianMs, p90Ms] of durations) {
      const s = stats.get(`${from} ${to} ${a}`);
      if (s) Object.assign(s, { medianMs: Number(medianMs), p90Ms: Number(p90Ms) });
    }
    return [...stats.values()];
  }

  /**
   * The clusters of `channel` (by their last poll) seen starting an edge into `to` since `since`, per
   * source version: where the reported ones stand, and how many only their polls show (counted as taking
   * it, standing unknown). Each cluster counts once, by its newest attempt into `to`: a cluster whose
   * history holds several, from several sources, is one cluster.
   */
  async rolloutRows(
    channel: string,
    to: string,
    since: number,
    clock: OutcomeClock,
  ): Promise<Array<{ from: string; states: Record<FleetUpdateState, number>; polledOnly: number }>> {
    const reported = await this.sql.rows<[string, FleetUpdateState, number]>(
      `SELECT f, s, COUNT(*) FROM (SELECT o.from_version AS f, ${STATE_OF} AS s ` +
        'FROM (SELECT * FROM (SELECT fo.*, ROW_NUMBER() OVER (PARTITION BY fo.id ' +
        'ORDER BY fo.position) AS attempt FROM fleet_outcomes fo WHERE fo.to_version = ? AND fo.seen_at >= ?) AS a ' +
        'WHERE attempt = 1) AS o JOIN fleet_reports r ON r.id = o.id JOIN fleet_clusters c ON c.id = o.id ' +
        'WHERE c.channel = ?) AS classified GROUP BY f, s',
      [clock.silentBefore, clock.silentBefore, clock.timeoutBefore, to, since, channel],
    );
    // The clusters that reported it are left out of those only polled. SQLite runs a correlated NOT EXISTS
    // through the outcomes' target index once per update (4.6 s at 40,000), so it gets an uncorrelated
    // NOT IN; PostgreSQL rescans a NOT IN's outcomes per update once they outgrow its hash memory (133 s
    // at 200,000), so it gets the NOT EXISTS it makes an anti-join of.
    const reportedToo =
      this.sql.engine === 'sqlite'
        ? 'u.id NOT IN (SELECT o.id FROM fleet_outcomes o WHERE o.to_version = ? AND o.seen_at >= ?)'
        : 'NOT EXISTS (SELECT 1 FROM fleet_outcomes o WHERE o.id = u.id AND o.to_version = ? AND o.seen_at >= ?)';
    const polled = await this.sql.rows<[string, number]>(
      'SELECT from_version, COUNT(*) FROM (SELECT u.from_version, ROW_NUMBER() OVER (PARTITION BY u.id ' +
        'ORDER BY u.first_at_to DESC) AS n FROM fleet_updates u WHERE u.to_version = ? AND u.channel = ? ' +
        `AND u.first_at_to >= ? AND u.suspicious = 0 AND ${reportedToo}) AS newest WHERE n = 1 GROUP BY from_version`,
      [to, channel, since, to, since],
    );
    const byFrom = new Map<string, { from: string; states: Record<FleetUpdateState, number>; polledOnly: number }>();
    const row = (from: string) => {
      let r = byFrom.get(from);
      if (!r)
        byFrom.set(
          from,
          (r = { from, states: { progressing: 0, completed: 0, failing: 0, silent: 0 }, polledOnly: 0 }),
        );
      return r;
    };
    for (const [from, state, n] of reported) row(from).states[state] += Number(n);
    for (const [from, n] of polled) row(from).polledOnly += Number(n);
    return [...byFrom.values()];
  }

  /**
   * How many distinct clusters were seen to start each edge since `since`, by their polls (a version
   * change counted as an update) or their reports.
   */
  async startedCounts(since: number): Promise<Array<{ from: string; to: string; arch: string; started: number }>> {
    const rows = await this.sql.rows<[string, string, string, number]>(
      'SELECT f, t, a, COUNT(DISTINCT id) FROM (' +
        'SELECT id, from_version AS f, to_version AS t, arch AS a FROM fleet_updates WHERE first_at_to >= ? AND suspicious = 0 ' +
        `UNION SELECT o.id, o.from_version, o.to_version, COALESCE(c.arch, '${UNKNOWN_ARCH}') ` +
        'FROM fleet_outcomes o LEFT JOIN fleet_clusters c ON c.id = o.id WHERE o.seen_at >= ?' +
        ') AS seen GROUP BY f, t, a',
      [since, since],
    );
    return rows.map(([from, to, arch, started]) => ({ from, to, arch, started: Number(started) }));
  }

  async count(): Promise<number> {
    return Number((await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM fleet_reports'))?.n ?? 0);
  }

  /** Forgets clusters that have not reported since `before`, with their updates; returns how many. */
  async prune(before: number): Promise<number> {
    const forgotten = await this.sql.run('DELETE FROM fleet_reports WHERE reported_at < ?', [before]);
    await this.sql.run(
      'DELETE FROM fleet_outcomes WHERE NOT EXISTS (SELECT 1 FROM fleet_reports r WHERE r.id = fleet_outcomes.id)',
    );
    return forgotten;
  }
}
