// Graph history as the store keeps it: the changes (graph_changes), the state of each view they led
// to (graph_history_views) and one mark of the whole state (graph_history_mark). The history recorder
// (app/history/recorder.ts) writes them in one transaction, comparing the mark first, so replicas
// sharing a database record each change once.
import type { Change, ChangeKind } from '../history/change.js';
import { insertRows, type Sql, type SqlValue } from './sql.js';

export interface StoredChange extends Change {
  id: number;
}

export interface HistoryMark {
  stateHash: string;
  auditMark: number;
  storeMark: number;
  recordedAt: string;
}

export interface ChangeFilter {
  channel?: string;
  arch?: string;
  kinds?: readonly ChangeKind[];
  /** ISO 8601: changes at or after it. */
  since?: string;
  /** ISO 8601: changes before it. */
  until?: string;
  /** Keyset: changes older than this id. */
  before?: number;
  limit: number;
}

const CHANGE_COLUMNS = [
  'at',
  'kind',
  'channel',
  'arch',
  'from_version',
  'to_version',
  'version',
  'risk',
  'cause',
  'actor',
  'detail',
];

interface ChangeRow {
  id: number | string;
  at: string;
  kind: ChangeKind;
  channel: string | null;
  arch: string | null;
  from_version: string | null;
  to_version: string | null;
  version: string | null;
  risk: string | null;
  cause: string | null;
  actor: string | null;
  detail: string | null;
}

export class HistoryRepository {
  constructor(private readonly sql: Sql) {}

  async mark(): Promise<HistoryMark | undefined> {
    const row = await this.sql.get<{
      state_hash: string;
      audit_mark: number | string;
      store_mark: number | string;
      recorded_at: string;
    }>('SELECT state_hash, audit_mark, store_mark, recorded_at FROM graph_history_mark WHERE id = 1');
    return (
      row && {
        stateHash: row.state_hash,
        auditMark: Number(row.audit_mark),
        storeMark: Number(row.store_mark),
        recordedAt: row.recorded_at,
      }
    );
  }

  async setMark(m: HistoryMark): Promise<void> {
    await this.sql.run(
      'INSERT INTO graph_history_mark (id, state_hash, audit_mark, store_mark, recorded_at) VALUES (1, ?, ?, ?, ?) ' +
        'ON CONFLICT (id) DO UPDATE SET state_hash = excluded.state_hash, audit_mark = excluded.audit_mark, ' +
        'store_mark = excluded.store_mark, recorded_at = excluded.recorded_at',
      [m.stateHash, m.auditMark, m.storeMark, m.recordedAt],
    );
  }

  /**
   * The store's generation as the database counts it (PostgreSQL: one more with every served write of
   * any replica); 0 on SQLite, whose writes come from one process. Orders the snapshots of replicas.
   */
  async storeGeneration(): Promise<number> {
    if (this.sql.engine !== 'postgres') return 0;
    const row = await this.sql.get<{ generation: number | string }>('SELECT generation FROM store_generation');
    return Number(row?.generation ?? 0);
  }

  /** The hash of every stored view's state, keyed `channel/arch`. */
  async viewHashes(): Promise<Map<string, string>> {
    const rows = await this.sql.all<{ channel: string; arch: string; hash: string }>(
      'SELECT channel, arch, hash FROM graph_history_views',
    );
    return new Map(rows.map((r) => [`${r.channel}/${r.arch}`, r.hash]));
  }

  /** The stored state of one view, as serialized; undefined when none is stored. */
  async viewState(channel: string, arch: string): Promise<string | undefined> {
    const row = await this.sql.get<{ state: string }>(
      'SELECT state FROM graph_history_views WHERE channel = ? AND arch = ?',
      [channel, arch],
    );
    return row?.state;
  }

  async putView(channel: string, arch: string, state: string, hash: string): Promise<void> {
    await this.sql.run(
      'INSERT INTO graph_history_views (channel, arch, state, hash) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (channel, arch) DO UPDATE SET state = excluded.state, hash = excluded.hash',
      [channel, arch, state, hash],
    );
  }

  async deleteView(channel: string, arch: string): Promise<void> {
    await this.sql.run('DELETE FROM graph_history_views WHERE channel = ? AND arch = ?', [channel, arch]);
  }

  async add(changes: readonly Change[]): Promise<void> {
    await insertRows(
      this.sql,
      'graph_changes',
      CHANGE_COLUMNS,
      changes.map((c) => [
        c.at,
        c.kind,
        c.channel ?? null,
        c.arch ?? null,
        c.from ?? null,
        c.to ?? null,
        c.version ?? null,
        c.risk ?? null,
        c.cause ?? null,
        c.actor ?? null,
        c.detail ? JSON.stringify(c.detail) : null,
      ]),
    );
  }

  /** Newest first (by id, the order they were recorded in). */
  async list(f: ChangeFilter): Promise<StoredChange[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const eq = (column: string, value: string | undefined): void => {
      if (value === undefined) return;
      where.push(`${column} = ?`);
      params.push(value);
    };
    eq('channel', f.channel);
    eq('arch', f.arch);
    if (f.kinds?.length) {
      where.push(`kind IN (${f.kinds.map(() => '?').join(', ')})`);
      params.push(...f.kinds);
    }
    if (f.since !== undefined) {
      where.push('at >= ?');
      params.push(f.since);
    }
    if (f.until !== undefined) {
      where.push('at < ?');
      params.push(f.until);
    }
    if (f.before !== undefined) {
      where.push('id < ?');
      params.push(f.before);
    }
    const rows = await this.sql.all<ChangeRow>(
      `SELECT id, ${CHANGE_COLUMNS.join(', ')} FROM graph_changes ` +
        `${where.length ? `WHERE ${where.join(' AND ')} ` : ''}ORDER BY id DESC LIMIT ?`,
      [...params, f.limit],
    );
    return rows.map(fromRow);
  }

  /** Forgets the changes recorded before `before` (ISO 8601); returns how many. */
  prune(before: string): Promise<number> {
    return this.sql.run('DELETE FROM graph_changes WHERE at < ?', [before]);
  }
}

function fromRow(r: ChangeRow): StoredChange {
  const c: StoredChange = { id: Number(r.id), kind: r.kind, at: r.at };
  if (r.channel !== null) c.channel = r.channel;
  if (r.arch !== null) c.arch = r.arch;
  if (r.from_version !== null) c.from = r.from_version;
  if (r.to_version !== null) c.to = r.to_version;
  if (r.version !== null) c.version = r.version;
  if (r.risk !== null) c.risk = r.risk;
  if (r.cause !== null) c.cause = r.cause;
  if (r.actor !== null) c.actor = r.actor;
  if (r.detail !== null) c.detail = JSON.parse(r.detail) as Record<string, unknown>;
  return c;
}
