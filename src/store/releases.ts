// Releases by (arch, version).
import type { Release } from '../graph/model.js';
import { insertRows, type Sql } from './sql.js';

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

/** Lists of more releases than this are compared with every stored release, read at once. */
const READ_ALL_FROM = 32;

export class ReleaseRepository {
  constructor(private readonly sql: Sql) {}

  async all(): Promise<Release[]> {
    return (await this.allRows()).map(releaseFromRow);
  }

  /** Every release as stored, its JSON columns not parsed yet (releaseFromRow parses one). */
  async allRows(): Promise<ReleaseRow[]> {
    // Rows as arrays, made into objects here: faster than rows as objects for thousands of them.
    const rows = await this.sql.rows<[string, string, string, string, string, string]>(
      'SELECT arch, version, payload, previous, next, metadata FROM releases',
    );
    return rows.map(([arch, version, payload, previous, next, metadata]) => ({
      arch,
      version,
      payload,
      previous,
      next,
      metadata,
    }));
  }

  async get(arch: string, version: string): Promise<Release | undefined> {
    const row = await this.sql.get<ReleaseRow>(
      'SELECT arch, version, payload, previous, next, metadata FROM releases WHERE arch = ? AND version = ?',
      [arch, version],
    );
    return row && releaseFromRow(row);
  }

  async byVersion(version: string): Promise<Release[]> {
    const rows = await this.sql.all<ReleaseRow>(
      'SELECT arch, version, payload, previous, next, metadata FROM releases WHERE version = ? ORDER BY arch',
      [version],
    );
    return rows.map(releaseFromRow);
  }

  async count(): Promise<number> {
    return Number((await this.sql.get<{ n: number }>('SELECT count(*) AS n FROM releases'))!.n);
  }

  /** Inserts or updates one release; the caller has checked that the payload did not change. */
  async upsert(r: Release, at: string): Promise<UpsertOutcome> {
    return (await this.upsertAll([r], at))[0]!;
  }

  /**
   * Inserts or updates each release (the caller has checked that no payload changed), writing only
   * those new or changed, in a few statements; the outcome of each, in order. `known`: every stored
   * release by `arch/version`, when the caller has read them already in this transaction.
   */
  async upsertAll(releases: readonly Release[], at: string, known?: Map<string, Release>): Promise<UpsertOutcome[]> {
    const stored = new Map(known ?? []);
    if (!known && releases.length > READ_ALL_FROM)
      for (const r of await this.all()) stored.set(`${r.arch}/${r.version}`, r);
    else if (!known)
      for (const r of releases) {
        const s = await this.get(r.arch, r.version);
        if (s) stored.set(`${r.arch}/${r.version}`, s);
      }
    // By key: a release listed twice is written once, as its last listing has it.
    const writes = new Map<string, string[]>();
    const outcomes = releases.map((r): UpsertOutcome => {
      const key = `${r.arch}/${r.version}`;
      const existing = stored.get(key);
      if (existing && contentOf(existing) === contentOf(r)) return 'unchanged';
      stored.set(key, r);
      writes.set(key, [
        r.arch,
        r.version,
        r.payload,
        JSON.stringify(r.previous),
        JSON.stringify(r.next),
        JSON.stringify(r.metadata),
        at,
        at,
      ]);
      return existing ? 'changed' : 'added';
    });
    await insertRows(
      this.sql,
      'releases',
      ['arch', 'version', 'payload', 'previous', 'next', 'metadata', 'created_at', 'updated_at'],
      [...writes.values()],
      'ON CONFLICT (arch, version) DO UPDATE SET payload = excluded.payload, previous = excluded.previous, ' +
        'next = excluded.next, metadata = excluded.metadata, updated_at = excluded.updated_at',
    );
    return outcomes;
  }

  async delete(arch: string, version: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM releases WHERE arch = ? AND version = ?', [arch, version])) > 0;
  }
}

const contentOf = (r: Release): string => JSON.stringify([r.payload, r.previous, r.next, r.metadata]);
