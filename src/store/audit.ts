// The audit log: who did what, when, with the state before and after.
import type { Sql, SqlValue } from './sql.js';

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  reason: string | null;
}

export class AuditRepository {
  constructor(private readonly sql: Sql) {}

  async record(e: Omit<AuditEntry, 'id'>): Promise<void> {
    await this.sql.run(
      'INSERT INTO audit (at, actor, action, target, before, after, reason) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [
        e.at,
        e.actor,
        e.action,
        e.target,
        e.before === undefined ? null : JSON.stringify(e.before),
        e.after === undefined ? null : JSON.stringify(e.after),
        e.reason,
      ],
    );
  }

  /** The id of the newest entry; 0 when there is none. */
  async newestId(): Promise<number> {
    const row = await this.sql.get<{ id: number | string | null }>('SELECT MAX(id) AS id FROM audit');
    return Number(row?.id ?? 0);
  }

  /** The entries with an id above `after` and at most `upTo`, oldest first (at most `limit`). */
  async between(after: number, upTo: number, limit = 1000): Promise<AuditEntry[]> {
    const rows = await this.sql.all<
      Omit<AuditEntry, 'before' | 'after'> & { before: string | null; after: string | null }
    >(
      'SELECT id, at, actor, action, target, before, after, reason FROM audit WHERE id > ? AND id <= ? ORDER BY id LIMIT ?',
      [after, upTo, limit],
    );
    return rows.map((r) => ({
      ...r,
      id: Number(r.id),
      before: r.before && (JSON.parse(r.before) as unknown),
      after: r.after && (JSON.parse(r.after) as unknown),
    }));
  }

  /** Newest first; `before` is an id: only older entries. */
  async list(filter: { since?: string; actor?: string; before?: number; limit?: number } = {}): Promise<AuditEntry[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (filter.before !== undefined) {
      where.push('id < ?');
      params.push(filter.before);
    }
    if (filter.since) {
      where.push('at >= ?');
      params.push(filter.since);
    }
    if (filter.actor) {
      where.push('actor = ?');
      params.push(filter.actor);
    }
    const sql =
      'SELECT id, at, actor, action, target, before, after, reason FROM audit ' +
      `${where.length ? `WHERE ${where.join(' AND ')} ` : ''}ORDER BY id DESC LIMIT ?`;
    const rows = await this.sql.all<
      Omit<AuditEntry, 'before' | 'after'> & { before: string | null; after: string | null }
    >(sql, [...params, filter.limit ?? 100]);
    return rows.map((r) => ({
      ...r,
      id: Number(r.id),
      before: r.before && (JSON.parse(r.before) as unknown),
      after: r.after && (JSON.parse(r.after) as unknown),
    }));
  }
}
