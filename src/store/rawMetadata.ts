// Raw metadata by version (the tree's raw/metadata.json): metadata a build merges into the releases of
// that version.
import type { RawMetadata } from '../schemas/graphData.js';
import { insertRows, type Sql } from './sql.js';

export class RawMetadataRepository {
  constructor(private readonly sql: Sql) {}

  async all(): Promise<RawMetadata> {
    const rows = await this.sql.rows<[string, string]>('SELECT version, metadata FROM raw_metadata ORDER BY version');
    return Object.fromEntries(
      rows.map(([version, metadata]) => [version, JSON.parse(metadata) as Record<string, string>]),
    );
  }

  /** Sets the metadata of each version given. */
  async put(entries: Array<[string, Record<string, string>]>): Promise<void> {
    await insertRows(
      this.sql,
      'raw_metadata',
      ['version', 'metadata'],
      entries.map(([version, md]) => [version, JSON.stringify(md)]),
      'ON CONFLICT (version) DO UPDATE SET metadata = excluded.metadata',
    );
  }

  async delete(version: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM raw_metadata WHERE version = ?', [version])) > 0;
  }
}
