// The audit log: who did what, when, with the state before and after.
import type { Db } from './open.js';

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
  constructor(private readonly db: Db) {}

  record(e: Omit<AuditEntry, 'id'>): void {
    this.db
      .prepare('INSERT INTO audit (at, actor, action, target, before, after, reason) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(
        e.at,
        e.actor,
        e.action,
        e.target,
        e.before === undefined ? null : JSON.stringify(e.before),
        e.after === undefined ? null : JSON.stringify(e.after),
        e.reason,
      );
  }

  /** Newest first; `before` is an id: only older entries. */
  list(filter: { since?: string; actor?: string; before?: number; limit?: number } = {}): AuditEntry[] {
    const where: string[] = [];
    const params: unknown[] = [];
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
    const sql = `SELECT * FROM audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...params, filter.limit ?? 100) as Array<
      Omit<AuditEntry, 'before' | 'after'> & { before: string | null; after: string | null }
    >;
    return rows.map((r) => ({
      ...r,
      before: r.before && (JSON.parse(r.before) as unknown),
      after: r.after && (JSON.parse(r.after) as unknown),
    }));
  }
}
