// The store of record: the repositories over one database, what a build reads, and the import of a
// graph-data tree as one transaction (upsert; prune only when asked).
import type { GraphInput } from '../graph/model.js';
import type { RawMetadata } from '../schemas/graphData.js';
import type { GraphDataTree, Problem } from '../sources/graphData.js';
import { AuditRepository } from './audit.js';
import { BlockedEdgeRepository } from './blockedEdges.js';
import { ChannelRepository } from './channels.js';
import { openDb, type Db } from './open.js';
import { ReleaseRepository, type UpsertOutcome } from './releases.js';

export interface Counts {
  added: number;
  changed: number;
  unchanged: number;
  removed: number;
}
export interface ImportSummary {
  skipped: boolean; // the same content was the last import
  contentHash: string;
  releases: Counts;
  channels: Counts;
  blockedEdges: Counts;
  rawMetadata: Counts;
}

export class ImportRejected extends Error {
  constructor(readonly problems: Problem[]) {
    super(`import rejected: ${problems.length} problem(s)`);
  }
}

export interface StoreOptions {
  now?: () => Date;
}

export class Store {
  readonly releases: ReleaseRepository;
  readonly channels: ChannelRepository;
  readonly blockedEdges: BlockedEdgeRepository;
  readonly audit: AuditRepository;
  private readonly now: () => Date;

  constructor(readonly db: Db, options: StoreOptions = {}) {
    this.releases = new ReleaseRepository(db);
    this.channels = new ChannelRepository(db);
    this.blockedEdges = new BlockedEdgeRepository(db);
    this.audit = new AuditRepository(db);
    this.now = options.now ?? (() => new Date());
  }

  static open(path: string, options: StoreOptions = {}): Store {
    return new Store(openDb(path), options);
  }

  close(): void {
    this.db.close();
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Everything a build needs, read in one transaction so it is consistent. */
  input(): GraphInput {
    return this.db.transaction(() => ({
      releases: this.releases.all(),
      channels: this.channels.all(),
      blockedEdges: this.blockedEdges.all(),
      rawMetadata: this.rawMetadata(),
    }))();
  }

  rawMetadata(): RawMetadata {
    const rows = this.db.prepare('SELECT version, metadata FROM raw_metadata ORDER BY version').all() as Array<{ version: string; metadata: string }>;
    return Object.fromEntries(rows.map((r) => [r.version, JSON.parse(r.metadata) as Record<string, string>]));
  }

  lastImport(): { contentHash: string; schemaVersion: string; importedAt: string } | undefined {
    const row = this.db.prepare('SELECT content_hash, schema_version, imported_at FROM imports ORDER BY id DESC LIMIT 1').get() as
      | { content_hash: string; schema_version: string; imported_at: string }
      | undefined;
    return row && { contentHash: row.content_hash, schemaVersion: row.schema_version, importedAt: row.imported_at };
  }

  /** True once the store holds something to serve. */
  hasContent(): boolean {
    return this.lastImport() !== undefined || this.releases.count() > 0;
  }

  /**
   * Applies a validated tree in one transaction. A release already stored with another payload
   * rejects the whole import; nothing is written then.
   */
  importTree(tree: GraphDataTree, opts: { source: string; prune?: boolean; force?: boolean; actor?: string }): ImportSummary {
    const summary: ImportSummary = { skipped: false, contentHash: tree.contentHash, releases: zero(), channels: zero(), blockedEdges: zero(), rawMetadata: zero() };
    if (!opts.force && !opts.prune && this.lastImport()?.contentHash === tree.contentHash) return { ...summary, skipped: true };
    const at = this.now().toISOString();
    const count = (c: Counts, o: UpsertOutcome): void => void (c[o] += 1);

    this.db.transaction(() => {
      const conflicts: Problem[] = [];
      for (const r of tree.releases) {
        const stored = this.releases.get(r.arch, r.version);
        if (stored && stored.payload !== r.payload) {
          conflicts.push({ file: `releases/${r.arch}/${r.version}.json`, field: 'payload', message: `${r.payload} differs from the stored payload ${stored.payload} of this release` });
        }
      }
      if (conflicts.length) throw new ImportRejected(conflicts);

      for (const r of tree.releases) count(summary.releases, this.releases.upsert(r, at));
      for (const c of tree.channels) count(summary.channels, this.channels.upsert(c, at));
      for (const e of tree.blockedEdges) count(summary.blockedEdges, this.blockedEdges.upsert(e, at));
      const rawBefore = this.rawMetadata();
      const putRaw = this.db.prepare('INSERT INTO raw_metadata VALUES (?, ?) ON CONFLICT (version) DO UPDATE SET metadata = excluded.metadata');
      for (const [version, md] of Object.entries(tree.rawMetadata)) {
        const before = rawBefore[version];
        count(summary.rawMetadata, !before ? 'added' : JSON.stringify(before) === JSON.stringify(md) ? 'unchanged' : 'changed');
        putRaw.run(version, JSON.stringify(md));
      }

      if (opts.prune) {
        const releases = new Set(tree.releases.map((r) => `${r.arch}/${r.version}`));
        for (const r of this.releases.all()) if (!releases.has(`${r.arch}/${r.version}`) && this.releases.delete(r.arch, r.version)) summary.releases.removed += 1;
        const channels = new Set(tree.channels.map((c) => `${c.internal}/${c.name}`));
        for (const c of this.channels.all()) {
          if (!channels.has(`${c.internal}/${c.name}`) && this.channels.delete(c.internal ? 'internal' : 'public', c.name)) summary.channels.removed += 1;
        }
        const edges = new Set(tree.blockedEdges.map((e) => e.id));
        for (const e of this.blockedEdges.all()) if (!edges.has(e.id) && this.blockedEdges.delete(e.id)) summary.blockedEdges.removed += 1;
        for (const version of Object.keys(rawBefore)) {
          if (!(version in tree.rawMetadata)) {
            this.db.prepare('DELETE FROM raw_metadata WHERE version = ?').run(version);
            summary.rawMetadata.removed += 1;
          }
        }
      }
      const recorded = { releases: summary.releases, channels: summary.channels, blockedEdges: summary.blockedEdges, rawMetadata: summary.rawMetadata, prune: !!opts.prune };
      this.db
        .prepare('INSERT INTO imports (content_hash, source, schema_version, imported_at, summary) VALUES (?, ?, ?, ?, ?)')
        .run(tree.contentHash, opts.source, tree.schemaVersion, at, JSON.stringify(recorded));
      this.audit.record({ at, actor: opts.actor ?? 'import', action: 'import', target: opts.source, before: undefined, after: { contentHash: tree.contentHash, ...recorded }, reason: null });
    })();
    return summary;
  }
}

const zero = (): Counts => ({ added: 0, changed: 0, unchanged: 0, removed: 0 });
