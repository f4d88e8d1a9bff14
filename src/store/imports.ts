// The imports applied (which tree, from where, when, what they changed) and, for the next import,
// what each entity looked like in the last imported tree.
import { insertRows, type Sql } from './sql.js';

export type ImportedKind = 'release' | 'channel' | 'blocked_edge' | 'raw_metadata';

export interface ImportRecord {
  contentHash: string;
  schemaVersion: string;
  importedAt: string;
  source: string;
  /** The tree's fingerprint on disk (treeFingerprint.ts), when the import was of a folder or tarball. */
  fingerprint: string | null;
}

export class ImportRepository {
  constructor(private readonly sql: Sql) {}

  async last(): Promise<ImportRecord | undefined> {
    const row = await this.sql.get<{
      content_hash: string;
      schema_version: string;
      imported_at: string;
      source: string;
      fingerprint: string | null;
    }>('SELECT content_hash, schema_version, imported_at, source, fingerprint FROM imports ORDER BY id DESC LIMIT 1');
    return (
      row && {
        contentHash: row.content_hash,
        schemaVersion: row.schema_version,
        importedAt: row.imported_at,
        source: row.source,
        fingerprint: row.fingerprint,
      }
    );
  }

  /**
   * Sets the fingerprint of the last import, if it came from `source` (its tree found unchanged again)
   * and had another: an equal one writes nothing, so replicas are not told of a change there is not.
   */
  async refingerprintLast(source: string, fingerprint: string): Promise<void> {
    await this.sql.run(
      'UPDATE imports SET fingerprint = ? WHERE id = (SELECT MAX(id) FROM imports) AND source = ? ' +
        'AND (fingerprint IS NULL OR fingerprint <> ?)',
      [fingerprint, source, fingerprint],
    );
  }

  /** The source of the newest import whose source starts with `prefix` (a graph-data image's `name@`). */
  async lastSource(prefix: string): Promise<string | undefined> {
    const row = await this.sql.get<{ source: string }>(
      'SELECT source FROM imports WHERE substr(source, 1, ?) = ? ORDER BY id DESC LIMIT 1',
      [prefix.length, prefix],
    );
    return row?.source;
  }

  /** Whether any import came from one of `sources`. */
  async anyFrom(sources: readonly string[]): Promise<boolean> {
    const marks = sources.map(() => '?').join(', ');
    return (
      (await this.sql.get(`SELECT 1 AS one FROM imports WHERE source IN (${marks}) LIMIT 1`, sources)) !== undefined
    );
  }

  async record(i: {
    contentHash: string;
    source: string;
    schemaVersion: string;
    at: string;
    summary: object;
    fingerprint?: string;
  }) {
    await this.sql.run(
      'INSERT INTO imports (content_hash, source, schema_version, imported_at, summary, fingerprint) ' +
        'VALUES (?, ?, ?, ?, ?, ?)',
      [i.contentHash, i.source, i.schemaVersion, i.at, JSON.stringify(i.summary), i.fingerprint ?? null],
    );
  }

  /** What each entity was in the last imported tree, by `kind/key`. */
  async importedState(): Promise<Map<string, string>> {
    const rows = await this.sql.rows<[string, string, string]>('SELECT kind, key, content FROM imported_state');
    return new Map(rows.map(([kind, key, content]) => [`${kind}/${key}`, content]));
  }

  /** Records what entities are in the tree being imported: [kind, key, content] each. */
  async rememberImported(entries: Array<[ImportedKind, string, string]>): Promise<void> {
    await insertRows(
      this.sql,
      'imported_state',
      ['kind', 'key', 'content'],
      entries,
      'ON CONFLICT (kind, key) DO UPDATE SET content = excluded.content',
    );
  }

  async forgetImported(): Promise<void> {
    await this.sql.run('DELETE FROM imported_state');
  }
}
