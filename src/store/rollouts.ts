// Phased rollouts as the store keeps them (graph/rollouts.ts says what they mean). Written by the
// rollouts API and by the monitor that halts them (app/rollouts/), read by every build.
import type { HaltAfter, Rollout, RolloutCounts, RolloutState } from '../graph/rollouts.js';
import type { Sql, SqlValue } from './sql.js';

interface Row {
  id: string;
  channel: string;
  to_version: string;
  from_regex: string | null;
  start_at: number | string;
  duration: string;
  duration_ms: number | string;
  canaries: string;
  halt_failures: number | null;
  halt_fraction: number | null;
  state: RolloutState;
  reason: string | null;
  state_at: number | string | null;
  halt_counts: string | null;
  url: string;
  created_at: number | string;
  created_by: string;
}

const COLUMNS = [
  'id',
  'channel',
  'to_version',
  'from_regex',
  'start_at',
  'duration',
  'duration_ms',
  'canaries',
  'halt_failures',
  'halt_fraction',
  'state',
  'reason',
  'state_at',
  'halt_counts',
  'url',
  'created_at',
  'created_by',
] as const;
const SELECT = `SELECT ${COLUMNS.join(', ')} FROM rollouts`;

const fromRow = (r: Row): Rollout => ({
  id: r.id,
  channel: r.channel,
  to: r.to_version,
  from: r.from_regex,
  start: Number(r.start_at),
  duration: r.duration,
  durationMs: Number(r.duration_ms),
  canaries: JSON.parse(r.canaries) as string[],
  haltAfter: { failures: r.halt_failures, fraction: r.halt_fraction } satisfies HaltAfter,
  state: r.state,
  reason: r.reason,
  stateAt: r.state_at === null ? null : Number(r.state_at),
  haltCounts: r.halt_counts === null ? null : (JSON.parse(r.halt_counts) as RolloutCounts),
  url: r.url,
  createdAt: Number(r.created_at),
  createdBy: r.created_by,
});

const toValues = (r: Rollout): SqlValue[] => [
  r.id,
  r.channel,
  r.to,
  r.from,
  r.start,
  r.duration,
  r.durationMs,
  JSON.stringify(r.canaries),
  r.haltAfter.failures,
  r.haltAfter.fraction,
  r.state,
  r.reason,
  r.stateAt,
  r.haltCounts && JSON.stringify(r.haltCounts),
  r.url,
  r.createdAt,
  r.createdBy,
];

export class RolloutRepository {
  constructor(private readonly sql: Sql) {}

  async get(id: string): Promise<Rollout | undefined> {
    const row = await this.sql.get<Row>(`${SELECT} WHERE id = ?`, [id]);
    return row && fromRow(row);
  }

  /** Every rollout, as stored (few: each is an administrator's write, or a graph-data rollout's halt). */
  async all(): Promise<Rollout[]> {
    return (await this.sql.all<Row>(`${SELECT} ORDER BY created_at, id`)).map(fromRow);
  }

  /** The newest rollout of `channel` to `to` declared through the API, if any. */
  async newestOf(channel: string, to: string): Promise<Rollout | undefined> {
    const row = await this.sql.get<Row>(
      `${SELECT} WHERE channel = ? AND to_version = ? AND id NOT LIKE 'gd-%' ORDER BY created_at DESC, id DESC LIMIT 1`,
      [channel, to],
    );
    return row && fromRow(row);
  }

  /** How many rollouts of `channel` are neither cancelled nor over by `endedBefore` (their window's end). */
  async unfinishedIn(channel: string, endedBefore: number): Promise<number> {
    const row = await this.sql.get<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM rollouts WHERE channel = ? AND state <> 'cancelled' AND start_at + duration_ms >= ?",
      [channel, endedBefore],
    );
    return Number(row?.n ?? 0);
  }

  async count(): Promise<number> {
    return Number((await this.sql.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM rollouts'))?.n ?? 0);
  }

  async insert(r: Rollout): Promise<void> {
    await this.sql.run(
      `INSERT INTO rollouts (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
      toValues(r),
    );
  }

  /**
   * Moves a rollout from state `from` to `to`; false when it was not in `from` (another replica, or
   * an administrator, moved it first).
   */
  async setState(
    id: string,
    from: RolloutState,
    to: RolloutState,
    change: { reason: string | null; at: number; haltCounts: RolloutCounts | null },
  ): Promise<boolean> {
    const n = await this.sql.run(
      'UPDATE rollouts SET state = ?, reason = ?, state_at = ?, halt_counts = ? WHERE id = ? AND state = ?',
      [to, change.reason, change.at, change.haltCounts && JSON.stringify(change.haltCounts), id, from],
    );
    return n > 0;
  }
}
