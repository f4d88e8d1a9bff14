// Blocked edges (conditional risks and hard blocks) by id, the file name they came from.
import type { BlockedEdge, Risk } from '../graph/model.js';
import { insertRows, type Sql } from './sql.js';
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

const toRow = (e: BlockedEdge): Row => ({
  id: e.id,
  to_version: e.to,
  from_regex: e.from,
  risk: e.risk ? JSON.stringify(e.risk) : null,
  fixed_in: e.fixedIn ?? null,
  auto_extend: e.autoExtend === undefined ? null : JSON.stringify(e.autoExtend),
});

const COLUMNS = 'id, to_version, from_regex, risk, fixed_in, auto_extend';

export class BlockedEdgeRepository {
  constructor(private readonly sql: Sql) {}

  async all(): Promise<BlockedEdge[]> {
    return (await this.sql.all<Row>(`SELECT ${COLUMNS} FROM blocked_edges ORDER BY id`)).map(fromRow);
  }

  async get(id: string): Promise<BlockedEdge | undefined> {
    const row = await this.sql.get<Row>(`SELECT ${COLUMNS} FROM blocked_edges WHERE id = ?`, [id]);
    return row && fromRow(row);
  }

  async upsert(e: BlockedEdge, at: string): Promise<UpsertOutcome> {
    return (await this.upsertAll([e], at))[0]!;
  }

  /** Inserts or updates each edge, writing only those new or changed; the outcome of each, in order. */
  async upsertAll(edges: readonly BlockedEdge[], at: string): Promise<UpsertOutcome[]> {
    const stored = new Map<string, string>();
    const known = edges.length > 32 ? await this.all() : await this.some(edges.map((e) => e.id));
    for (const e of known) stored.set(e.id, JSON.stringify(e));
    const writes = new Map<string, Array<string | null>>();
    const outcomes = edges.map((e): UpsertOutcome => {
      const before = stored.get(e.id);
      // Compared as a read gives it back, so an edge stored as sent is unchanged.
      const content = JSON.stringify(fromRow(toRow(e)));
      if (before === content) return 'unchanged';
      stored.set(e.id, content);
      const r = toRow(e);
      writes.set(e.id, [r.id, r.to_version, r.from_regex, r.risk, r.fixed_in, r.auto_extend, at]);
      return before === undefined ? 'added' : 'changed';
    });
    await insertRows(
      this.sql,
      'blocked_edges',
      ['id', 'to_version', 'from_regex', 'risk', 'fixed_in', 'auto_extend', 'updated_at'],
      [...writes.values()],
      'ON CONFLICT (id) DO UPDATE SET to_version = excluded.to_version, from_regex = excluded.from_regex, ' +
        'risk = excluded.risk, fixed_in = excluded.fixed_in, auto_extend = excluded.auto_extend, ' +
        'updated_at = excluded.updated_at',
    );
    return outcomes;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM blocked_edges WHERE id = ?', [id])) > 0;
  }

  private async some(ids: string[]): Promise<BlockedEdge[]> {
    const found: BlockedEdge[] = [];
    for (const id of new Set(ids)) {
      const e = await this.get(id);
      if (e) found.push(e);
    }
    return found;
  }
}
