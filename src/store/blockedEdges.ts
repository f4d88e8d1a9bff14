// Blocked edges (conditional risks and hard blocks) by id, the file name they came from.
import type { BlockedEdge, Risk } from '../graph/model.js';
import type { Db } from './open.js';
import type { UpsertOutcome } from './releases.js';

interface Row {
  id: string;
  to_version: string;
  from_regex: string;
  risk: string | null;
  fixed_in: string | null;
  auto_extend: string | null;
}

const fromRow = (r: Row): BlockedEdge => {
  const e: BlockedEdge = { id: r.id, to: r.to_version, from: r.from_regex };
  if (r.risk) e.risk = JSON.parse(r.risk) as Risk;
  if (r.fixed_in !== null) e.fixedIn = r.fixed_in;
  if (r.auto_extend !== null) e.autoExtend = JSON.parse(r.auto_extend) as unknown;
  return e;
};

export class BlockedEdgeRepository {
  constructor(private readonly db: Db) {}

  all(): BlockedEdge[] {
    return (this.db.prepare('SELECT * FROM blocked_edges ORDER BY id').all() as Row[]).map(fromRow);
  }

  get(id: string): BlockedEdge | undefined {
    const row = this.db.prepare('SELECT * FROM blocked_edges WHERE id = ?').get(id) as Row | undefined;
    return row && fromRow(row);
  }

  upsert(e: BlockedEdge, at: string): UpsertOutcome {
    const before = this.get(e.id);
    if (before && JSON.stringify(before) === JSON.stringify(fromRow(this.toRow(e)))) return 'unchanged';
    const r = this.toRow(e);
    this.db
      .prepare(
        `INSERT INTO blocked_edges VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET to_version = excluded.to_version, from_regex = excluded.from_regex, risk = excluded.risk,
                  fixed_in = excluded.fixed_in, auto_extend = excluded.auto_extend, updated_at = excluded.updated_at`,
      )
      .run(r.id, r.to_version, r.from_regex, r.risk, r.fixed_in, r.auto_extend, at);
    return before ? 'changed' : 'added';
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM blocked_edges WHERE id = ?').run(id).changes > 0;
  }

  private toRow(e: BlockedEdge): Row {
    return {
      id: e.id,
      to_version: e.to,
      from_regex: e.from,
      risk: e.risk ? JSON.stringify(e.risk) : null,
      fixed_in: e.fixedIn ?? null,
      auto_extend: e.autoExtend === undefined ? null : JSON.stringify(e.autoExtend),
    };
  }
}
