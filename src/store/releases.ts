// Releases by (arch, version).
import type { Release } from '../graph/model.js';
import type { Db } from './open.js';

/** A release as stored: `previous`, `next` and `metadata` are JSON text. */
export interface ReleaseRow {
  arch: string;
  version: string;
  payload: string;
  previous: string;
  next: string;
  metadata: string;
}

export const releaseFromRow = (r: ReleaseRow): Release => ({
  version: r.version,
  arch: r.arch,
  payload: r.payload,
  previous: JSON.parse(r.previous) as string[],
  next: JSON.parse(r.next) as string[],
  metadata: JSON.parse(r.metadata) as Record<string, string>,
});

export type UpsertOutcome = 'added' | 'changed' | 'unchanged';

export class ReleaseRepository {
  // Prepared once: imports call get and upsert for every release.
  private readonly getStmt;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly byVersionStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare('SELECT * FROM releases WHERE arch = ? AND version = ?');
    this.insertStmt = db.prepare('INSERT INTO releases VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.byVersionStmt = db.prepare('SELECT * FROM releases WHERE version = ? ORDER BY arch');
    this.updateStmt = db.prepare(
      'UPDATE releases SET payload = ?, previous = ?, next = ?, metadata = ?, updated_at = ? WHERE arch = ? AND version = ?',
    );
  }

  all(): Release[] {
    return (this.db.prepare('SELECT * FROM releases').all() as ReleaseRow[]).map(releaseFromRow);
  }

  /** Every release as stored, its JSON columns not parsed yet (releaseFromRow parses one). */
  allRows(): ReleaseRow[] {
    // Rows as arrays, made into objects here: faster than rows as objects for thousands of them.
    const rows = this.db
      .prepare('SELECT arch, version, payload, previous, next, metadata FROM releases')
      .raw()
      .all() as Array<[string, string, string, string, string, string]>;
    return rows.map(([arch, version, payload, previous, next, metadata]) => ({
      arch,
      version,
      payload,
      previous,
      next,
      metadata,
    }));
  }

  get(arch: string, version: string): Release | undefined {
    const row = this.getStmt.get(arch, version) as ReleaseRow | undefined;
    return row && releaseFromRow(row);
  }

  byVersion(version: string): Release[] {
    return (this.byVersionStmt.all(version) as ReleaseRow[]).map(releaseFromRow);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM releases').get() as { n: number }).n;
  }

  /** Inserts or updates; the caller has checked that the payload did not change. */
  upsert(r: Release, at: string): UpsertOutcome {
    const existing = this.get(r.arch, r.version);
    const cols = [r.payload, JSON.stringify(r.previous), JSON.stringify(r.next), JSON.stringify(r.metadata)] as const;
    if (!existing) {
      this.insertStmt.run(r.arch, r.version, ...cols, at, at);
      return 'added';
    }
    if (
      JSON.stringify([existing.payload, existing.previous, existing.next, existing.metadata]) ===
      JSON.stringify([r.payload, r.previous, r.next, r.metadata])
    ) {
      return 'unchanged';
    }
    this.updateStmt.run(...cols, at, r.arch, r.version);
    return 'changed';
  }

  delete(arch: string, version: string): boolean {
    return this.db.prepare('DELETE FROM releases WHERE arch = ? AND version = ?').run(arch, version).changes > 0;
  }
}
