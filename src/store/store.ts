// The store of record: the repositories over one database, what a build reads, and the import of a
// graph-data tree as one transaction (upsert; prune only when asked).
import { systemClock, type Clock } from '../clock.js';
import type { Channel, GraphInput, Release } from '../graph/model.js';
import type { Feeder, RawMetadata } from '../schemas/graphData.js';
import type { GraphDataTree } from '../sources/graphData.js';
import type { Problem } from '../validation/problems.js';
import type { VerifiedFile } from '../signatures/verify.js';
import { AuditRepository } from './audit.js';
import { SignatureRepository } from './signatures.js';
import { BlockedEdgeRepository } from './blockedEdges.js';
import { ChannelRepository, channelKind } from './channels.js';
import { MIGRATIONS_DIR, openDb, type Db } from './open.js';
import { RegistryRepository, type ScrapeChanges } from './registry.js';
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
  signatures: Counts;
}

export class ImportRejected extends Error {
  constructor(readonly problems: Problem[]) {
    super(`import rejected: ${problems.length} problem(s)`);
  }
}

export interface StoreOptions {
  /** The time writes are recorded at (default: real time). */
  clock?: Clock;
}

export class Store {
  readonly releases: ReleaseRepository;
  readonly channels: ChannelRepository;
  readonly blockedEdges: BlockedEdgeRepository;
  readonly audit: AuditRepository;
  readonly signatures: SignatureRepository;
  readonly registry: RegistryRepository;
  private readonly clock: Clock;

  constructor(
    readonly db: Db,
    options: StoreOptions = {},
  ) {
    this.releases = new ReleaseRepository(db);
    this.channels = new ChannelRepository(db);
    this.blockedEdges = new BlockedEdgeRepository(db);
    this.audit = new AuditRepository(db);
    this.signatures = new SignatureRepository(db);
    this.registry = new RegistryRepository(db, this.releases);
    this.clock = options.clock ?? systemClock;
  }

  static open(path: string, options: StoreOptions = {}): Store {
    return new Store(openDb(path, MIGRATIONS_DIR, options.clock), options);
  }

  close(): void {
    this.db.close();
  }

  /**
   * Bumped by every write transaction, and when another process's write is noticed
   * (changedElsewhere): what is derived from the store can be cached per generation.
   */
  generation = 0;
  private dataVersion: number | undefined;

  /**
   * Runs `fn` in one write transaction (nested calls join the outer one). It takes the write lock
   * at its start (BEGIN IMMEDIATE), so a busy database fails it before anything ran, and a read
   * inside it can never be overtaken by another writer's commit.
   */
  transaction<T>(fn: () => T): T {
    this.generation += 1;
    return this.db.transaction(fn).immediate();
  }

  /**
   * True once after another connection (another process: `cincy import`, a second server) committed
   * a write since the last call; the generation moves with it. SQLite's data_version is local to this
   * connection and ignores its own writes, so reading it costs no I/O.
   */
  changedElsewhere(): boolean {
    const now = this.db.pragma('data_version', { simple: true }) as number;
    const changed = this.dataVersion !== undefined && now !== this.dataVersion;
    this.dataVersion = now;
    if (changed) this.generation += 1;
    return changed;
  }

  /** How long a write of this connection waits, blocking its thread, for another's write lock. */
  setBusyTimeout(ms: number): void {
    this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(ms))}`);
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
    const rows = this.db.prepare('SELECT version, metadata FROM raw_metadata ORDER BY version').all() as Array<{
      version: string;
      metadata: string;
    }>;
    return Object.fromEntries(rows.map((r) => [r.version, JSON.parse(r.metadata) as Record<string, string>]));
  }

  lastImport(): { contentHash: string; schemaVersion: string; importedAt: string } | undefined {
    const row = this.db
      .prepare('SELECT content_hash, schema_version, imported_at FROM imports ORDER BY id DESC LIMIT 1')
      .get() as { content_hash: string; schema_version: string; imported_at: string } | undefined;
    return row && { contentHash: row.content_hash, schemaVersion: row.schema_version, importedAt: row.imported_at };
  }

  /** The source of the newest import whose source starts with `prefix` (a graph-data image's `name@`). */
  lastImportSource(prefix: string): string | undefined {
    const row = this.db
      .prepare('SELECT source FROM imports WHERE substr(source, 1, ?) = ? ORDER BY id DESC LIMIT 1')
      .get(prefix.length, prefix) as { source: string } | undefined;
    return row?.source;
  }

  /** True once the store holds something to serve. */
  hasContent(): boolean {
    return this.lastImport() !== undefined || this.releases.count() > 0;
  }

  /**
   * Applies a validated tree in one transaction. Each release, blocked edge and raw-metadata entry is
   * written only when its content differs from what the last import brought, and a channel gets the
   * versions and tombstones the tree added or dropped since then: what the admin API changed
   * elsewhere stays. `prune` makes the store equal to the tree instead. A release already stored
   * with another payload rejects the whole import; nothing is written then.
   */
  importTree(
    tree: GraphDataTree,
    opts: { source: string; prune?: boolean; force?: boolean; actor?: string; signatures?: VerifiedFile[] },
  ): ImportSummary {
    const summary: ImportSummary = {
      skipped: false,
      contentHash: tree.contentHash,
      releases: zero(),
      channels: zero(),
      blockedEdges: zero(),
      rawMetadata: zero(),
      signatures: zero(),
    };
    const at = new Date(this.clock.now()).toISOString();
    const addSignatures = (): void => {
      // Only ever added, and only verified ones (the caller checked them against the trust store).
      for (const sig of opts.signatures ?? [])
        summary.signatures[this.signatures.add({ ...sig, verifiedAt: at }).added ? 'added' : 'unchanged'] += 1;
    };
    if (!opts.force && !opts.prune && this.lastImport()?.contentHash === tree.contentHash) {
      // The same tree: only signatures may have become verifiable (the trust keys may have changed).
      this.transaction(addSignatures);
      return { ...summary, skipped: true };
    }
    const prune = !!opts.prune;
    const previous = this.importedState();
    const remember = this.db.prepare('INSERT OR REPLACE INTO imported_state (kind, key, content) VALUES (?, ?, ?)');
    const putRaw = this.db.prepare(
      'INSERT INTO raw_metadata VALUES (?, ?) ON CONFLICT (version) DO UPDATE SET metadata = excluded.metadata',
    );
    /** Applies one entity unless the tree brings it exactly as last time. */
    const apply = <T>(
      counts: Counts,
      kind: ImportedKind,
      key: string,
      value: T,
      write: (value: T) => UpsertOutcome,
    ): void => {
      const content = JSON.stringify(value);
      if (!prune && previous.get(`${kind}/${key}`) === content) counts.unchanged += 1;
      else counts[write(value)] += 1;
      remember.run(kind, key, content);
    };

    this.transaction(() => {
      const conflicts: Problem[] = [];
      for (const r of tree.releases) {
        const stored = this.releases.get(r.arch, r.version);
        if (stored && stored.payload !== r.payload) {
          conflicts.push({
            file: `releases/${r.arch}/${r.version}.json`,
            field: 'payload',
            message: `${r.payload} differs from the stored payload ${stored.payload} of this release`,
          });
        }
      }
      if (conflicts.length) throw new ImportRejected(conflicts);
      if (prune) this.db.exec('DELETE FROM imported_state');

      for (const r of tree.releases)
        apply(summary.releases, 'release', `${r.arch}/${r.version}`, r, (v) => this.releases.upsert(v, at));
      for (const c of tree.channels) {
        const key = `${channelKind(c)}/${c.name}`;
        const before = previous.get(`channel/${key}`);
        apply(
          summary.channels,
          'channel',
          key,
          { versions: c.versions, feeder: c.feeder ?? null, tombstones: c.tombstones },
          () =>
            this.channels.upsert(prune ? c : mergeChannel(c, this.channels.get(channelKind(c), c.name), before), at),
        );
      }
      for (const e of tree.blockedEdges)
        apply(summary.blockedEdges, 'blocked_edge', e.id, e, (v) => this.blockedEdges.upsert(v, at));
      const rawBefore = this.rawMetadata();
      for (const [version, md] of Object.entries(tree.rawMetadata)) {
        apply(summary.rawMetadata, 'raw_metadata', version, md, (v) => {
          const before = rawBefore[version];
          putRaw.run(version, JSON.stringify(v));
          return !before ? 'added' : JSON.stringify(before) === JSON.stringify(v) ? 'unchanged' : 'changed';
        });
      }

      addSignatures();

      if (prune) {
        const releases = new Set(tree.releases.map((r) => `${r.arch}/${r.version}`));
        for (const r of this.releases.all())
          if (!releases.has(`${r.arch}/${r.version}`) && this.releases.delete(r.arch, r.version))
            summary.releases.removed += 1;
        const channels = new Set(tree.channels.map((c) => `${channelKind(c)}/${c.name}`));
        for (const c of this.channels.all()) {
          if (!channels.has(`${channelKind(c)}/${c.name}`) && this.channels.delete(channelKind(c), c.name))
            summary.channels.removed += 1;
        }
        const edges = new Set(tree.blockedEdges.map((e) => e.id));
        for (const e of this.blockedEdges.all())
          if (!edges.has(e.id) && this.blockedEdges.delete(e.id)) summary.blockedEdges.removed += 1;
        // A scraped release the tree did not have is gone: the repository no longer holds it as its own.
        this.db.exec(
          'DELETE FROM scraped_releases WHERE NOT EXISTS (SELECT 1 FROM releases r ' +
            'WHERE r.arch = scraped_releases.arch AND r.version = scraped_releases.version)',
        );
        for (const version of Object.keys(rawBefore)) {
          if (!(version in tree.rawMetadata)) {
            this.db.prepare('DELETE FROM raw_metadata WHERE version = ?').run(version);
            summary.rawMetadata.removed += 1;
          }
        }
      }
      const recorded = {
        releases: summary.releases,
        channels: summary.channels,
        blockedEdges: summary.blockedEdges,
        rawMetadata: summary.rawMetadata,
        signatures: summary.signatures,
        prune,
      };
      this.db
        .prepare(
          'INSERT INTO imports (content_hash, source, schema_version, imported_at, summary) VALUES (?, ?, ?, ?, ?)',
        )
        .run(tree.contentHash, opts.source, tree.schemaVersion, at, JSON.stringify(recorded));
      this.audit.record({
        at,
        actor: opts.actor ?? 'import',
        action: 'import',
        target: opts.source,
        before: undefined,
        after: { contentHash: tree.contentHash, ...recorded },
        reason: null,
      });
    });
    return summary;
  }

  /**
   * Makes the releases scraped from `repository` equal to `found`, in one transaction, and audits a change.
   * A conflict with a release of another source writes nothing and throws ImportRejected.
   */
  applyScrape(repository: string, found: Release[]): ScrapeChanges {
    const at = new Date(this.clock.now()).toISOString();
    return this.transaction(() => {
      const { changes, conflicts } = this.registry.replace(repository, found, at);
      if (conflicts.length) throw new ImportRejected(conflicts);
      if (changes.added || changes.changed || changes.removed)
        this.audit.record({
          at,
          actor: 'registry',
          action: 'scrape',
          target: repository,
          before: undefined,
          after: changes,
          reason: null,
        });
      return changes;
    });
  }

  private importedState(): Map<string, string> {
    const rows = this.db.prepare('SELECT kind, key, content FROM imported_state').all() as Array<{
      kind: string;
      key: string;
      content: string;
    }>;
    return new Map(rows.map((r) => [`${r.kind}/${r.key}`, r.content]));
  }
}

type ImportedKind = 'release' | 'channel' | 'blocked_edge' | 'raw_metadata';

/**
 * A channel from the tree applied on top of the stored one: the versions and tombstones the tree
 * added since the last import are added, those it dropped are removed, the rest (including what the
 * admin API promoted or withdrew) stays; the feeder follows the tree only when the tree changed it.
 */
function mergeChannel(tree: Channel, stored: Channel | undefined, lastImported: string | undefined): Channel {
  if (!stored) return tree;
  const base = lastImported
    ? (JSON.parse(lastImported) as { versions: string[]; feeder: Feeder | null; tombstones: string[] })
    : { versions: [], feeder: null, tombstones: [] };
  const merge = (current: string[], before: string[], after: string[]): string[] => {
    const dropped = new Set(before.filter((v) => !after.includes(v)));
    const added = after.filter((v) => !before.includes(v));
    return [...new Set([...current.filter((v) => !dropped.has(v)), ...added])];
  };
  const feederChanged = JSON.stringify(tree.feeder ?? null) !== JSON.stringify(base.feeder);
  const feeder = feederChanged ? tree.feeder : stored.feeder;
  return {
    name: tree.name,
    internal: tree.internal,
    versions: merge(stored.versions, base.versions, tree.versions),
    tombstones: merge(stored.tombstones, base.tombstones, tree.tombstones),
    ...(feeder && { feeder }),
  };
}

const zero = (): Counts => ({ added: 0, changed: 0, unchanged: 0, removed: 0 });
