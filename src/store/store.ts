// The store of record, on SQLite or PostgreSQL: the repositories of one transaction (StoreTx), reads
// and writes as transactions, what a build reads, the import of a graph-data tree and the scrape of a
// registry repository each as one write, and the generation that tells whether anything changed.
import { AsyncLocalStorage } from 'node:async_hooks';
import { systemClock, type Clock } from '../clock.js';
import type { GraphDataTree, StoredTree } from '../graph/graphDataTree.js';
import type { Channel, GraphInput, Release } from '../graph/model.js';
import type { ManifestCache } from '../registry/scrapeMemory.js';
import type { Feeder } from '../schemas/graphData.js';
import type { Problem } from '../validation/problems.js';
import type { VerifiedFile } from '../signatures/verify.js';
import { AuditRepository } from './audit.js';
import { SignatureRepository } from './signatures.js';
import { BlockedEdgeRepository } from './blockedEdges.js';
import { FleetRepository } from './fleet.js';
import { FleetReportRepository } from './fleetReports.js';
import { RolloutRepository } from './rollouts.js';
import { HistoryRepository } from './history.js';
import { ChannelRepository, channelKind, type ChannelMember, type ChannelRef } from './channels.js';
import { ImportRepository, type ImportedKind } from './imports.js';
import { PostgresLeadership, soleLeadership, type Leadership } from './leadership.js';
import { PostgresDatabase, type PostgresOptions } from './postgres.js';
import { namesPostgres } from './postgresConnection.js';
import { RawMetadataRepository } from './rawMetadata.js';
import { RegistryRepository, type ScrapeChanges } from './registry.js';
import { ReleaseRepository } from './releases.js';
import { StoreFull, type Database, type Engine, type Sql } from './sql.js';
import { SqliteDatabase, type SqliteOptions } from './sqlite.js';
import { WebhookRepository } from './webhooks.js';

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
  /** Open for reading only, without migrating (the build worker). */
  readonly?: boolean;
  sqlite?: SqliteOptions;
  postgres?: PostgresOptions;
}

/** The repositories, on the connection of one transaction. */
export class StoreTx {
  readonly releases: ReleaseRepository;
  readonly channels: ChannelRepository;
  readonly blockedEdges: BlockedEdgeRepository;
  readonly rawMetadata: RawMetadataRepository;
  readonly audit: AuditRepository;
  readonly signatures: SignatureRepository;
  readonly registry: RegistryRepository;
  readonly imports: ImportRepository;
  readonly fleet: FleetRepository;
  readonly fleetReports: FleetReportRepository;
  readonly history: HistoryRepository;
  readonly webhooks: WebhookRepository;
  readonly rollouts: RolloutRepository;

  constructor(readonly sql: Sql) {
    this.releases = new ReleaseRepository(sql);
    this.channels = new ChannelRepository(sql);
    this.blockedEdges = new BlockedEdgeRepository(sql);
    this.rawMetadata = new RawMetadataRepository(sql);
    this.audit = new AuditRepository(sql);
    this.signatures = new SignatureRepository(sql);
    this.registry = new RegistryRepository(sql, this.releases);
    this.imports = new ImportRepository(sql);
    this.fleet = new FleetRepository(sql);
    this.fleetReports = new FleetReportRepository(sql);
    this.history = new HistoryRepository(sql);
    this.webhooks = new WebhookRepository(sql);
    this.rollouts = new RolloutRepository(sql);
  }

  /** Everything a build needs (consistent when the transaction is a read or a write). */
  async input(): Promise<GraphInput> {
    return (await this.inputAndMembers()).input;
  }

  /** The input of a build, and when each version entered each channel, read once. */
  async inputAndMembers(): Promise<{ input: GraphInput; members: ChannelMember[] }> {
    const { channels, members } = await this.channels.allWithMembers();
    const input = {
      releases: await this.releases.all(),
      channels,
      blockedEdges: await this.blockedEdges.all(),
      rawMetadata: await this.rawMetadata.all(),
    };
    return { input, members };
  }

  /**
   * Says that this write changed these channels and nothing else: other replicas told of it re-read
   * only them (without it, they read everything again).
   */
  changedOnly(channels: ChannelRef[]): void {
    this.sql.notice = JSON.stringify({ channels: channels.map(({ kind, name }) => ({ kind, name })) });
  }

  /** True once the store holds something to serve. */
  async hasContent(): Promise<boolean> {
    return (await this.imports.last()) !== undefined || (await this.releases.count()) > 0;
  }
}

export class Store {
  /**
   * One more after every write that changed something, here or (once noticed, see watch) elsewhere:
   * what is derived from the store can be kept per generation.
   */
  generation = 0;
  /** Why the last write failed for want of room (StoreFull), until a write succeeds again. */
  fullProblem: string | undefined;
  private readonly clock: Clock;
  /** Set inside a transaction: a transaction started there would wait for itself. */
  private readonly inside = new AsyncLocalStorage<true>();

  constructor(
    readonly database: Database,
    options: StoreOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * The store at `location`: a postgres:// URL, else a SQLite file or :memory:. Nothing is read
   * yet (a SQLite file is opened): connect() does that.
   */
  static at(location: string, options: StoreOptions = {}): Store {
    const database = namesPostgres(location)
      ? new PostgresDatabase(location, { ...options.postgres, readonly: options.readonly })
      : SqliteDatabase.at(location, { ...options.sqlite, readonly: options.readonly });
    return new Store(database, options);
  }

  /** The store at `location`, connected and migrated. */
  static async open(location: string, options: StoreOptions = {}): Promise<Store> {
    const store = Store.at(location, options);
    try {
      await store.connect();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  get engine(): Engine {
    return this.database.engine;
  }

  /** Connects and migrates; StoreUnavailable while the database cannot be reached (call again). */
  connect(): Promise<void> {
    return this.database.connect();
  }

  close(): Promise<void> {
    return this.database.close();
  }

  /** Runs `fn` in a read transaction: everything it reads is one state of the store. */
  read<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return this.transaction('read', fn);
  }

  /**
   * Runs `fn` in one write transaction, all or nothing; writes from every process and replica apply
   * one at a time. StoreUnavailable when the database could not take it (nothing was written).
   */
  async write<T>(fn: (tx: StoreTx) => Promise<T>, options: { unserved?: boolean } = {}): Promise<T> {
    let changes = 0;
    let value: T;
    try {
      value = await this.transaction(
        'write',
        async (tx) => {
          const v = await fn(tx);
          changes = tx.sql.changes;
          return v;
        },
        options,
      );
    } catch (err) {
      if (err instanceof StoreFull) this.fullProblem = err.message;
      throw err;
    }
    // Room for a served write clears it; a background one (a poll flush, graph history's mark) is
    // often smaller than the write that was refused, and says nothing of room for it.
    if (changes > 0 && !options.unserved) this.fullProblem = undefined;
    if (changes > 0 && !options.unserved) this.generation += 1;
    return value;
  }

  /** Everything a build needs, read in one transaction. */
  input(): Promise<GraphInput> {
    return this.read((tx) => tx.input());
  }

  /** What export writes back as a graph-data tree, read in one transaction. */
  storedTree(): Promise<StoredTree> {
    return this.read(async (tx) => ({
      input: await tx.input(),
      schemaVersion: (await tx.imports.last())?.schemaVersion,
      signatures: await tx.signatures.all(),
    }));
  }

  /**
   * Tells `listener` of writes committed by other processes or replicas (the generation moves
   * first), with the channels they changed when they changed nothing else, and of the database
   * becoming unreachable or reachable again; returns the stop.
   */
  watch(listener: StoreListener): () => void {
    return this.database.watch({
      changed: (notice) => {
        this.generation += 1;
        listener.changed(channelsOf(notice));
      },
      health: (problem) => listener.health(problem),
    });
  }

  /** Who runs the jobs that must run once: one of the replicas sharing a PostgreSQL database. */
  leadership(): Leadership {
    const { engine, location } = this.database;
    this.lead ??= engine === 'postgres' && location ? new PostgresLeadership(location) : soleLeadership;
    return this.lead;
  }
  private lead: Leadership | undefined;

  /** The scraper's memory of manifests and tags: a cache, so its writes are not news to other replicas. */
  manifestCache(): ManifestCache {
    return {
      manifest: (digest) => this.read((tx) => tx.registry.manifest(digest)),
      remember: (m, at) => this.write((tx) => tx.registry.remember(m, at), { unserved: true }),
      tags: (repository) => this.read((tx) => tx.registry.tags(repository)),
      rememberTags: (repository, tags) =>
        this.write((tx) => tx.registry.rememberTags(repository, tags), { unserved: true }),
      prune: (since) => this.write((tx) => tx.registry.prune(since), { unserved: true }),
    };
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
    opts: {
      source: string;
      prune?: boolean;
      force?: boolean;
      actor?: string;
      signatures?: VerifiedFile[];
      /** The tree's fingerprint on disk (sources/treeFingerprint.ts), recorded with the import. */
      fingerprint?: string;
    },
  ): Promise<ImportSummary> {
    const at = new Date(this.clock.now()).toISOString();
    return this.write(async (tx) => {
      const summary: ImportSummary = {
        skipped: false,
        contentHash: tree.contentHash,
        releases: zero(),
        channels: zero(),
        blockedEdges: zero(),
        rawMetadata: zero(),
        signatures: zero(),
      };
      // Only ever added, and only verified ones (the caller checked them against the trust store).
      for (const sig of opts.signatures ?? [])
        summary.signatures[(await tx.signatures.add({ ...sig, verifiedAt: at })).added ? 'added' : 'unchanged'] += 1;
      if (!opts.force && !opts.prune && (await tx.imports.last())?.contentHash === tree.contentHash) {
        // The same tree (other files beside it may have changed its fingerprint): only signatures may have become verifiable.
        if (opts.fingerprint) await tx.imports.refingerprintLast(opts.source, opts.fingerprint);
        return { ...summary, skipped: true };
      }

      const prune = !!opts.prune;
      const previous = prune ? new Map<string, string>() : await tx.imports.importedState();
      const remembered: Array<[ImportedKind, string, string]> = [];
      /** Whether an entity differs from what the last import brought (and it is remembered as the tree has it). */
      const changedSinceImport = (kind: ImportedKind, key: string, value: unknown): boolean => {
        const content = JSON.stringify(value);
        const before = previous.get(`${kind}/${key}`);
        if (before !== content) remembered.push([kind, key, content]);
        return before !== content;
      };

      const stored = new Map((await tx.releases.all()).map((r) => [`${r.arch}/${r.version}`, r]));
      const conflicts: Problem[] = [];
      for (const r of tree.releases) {
        const s = stored.get(`${r.arch}/${r.version}`);
        if (s && s.payload !== r.payload)
          conflicts.push({
            file: `releases/${r.arch}/${r.version}.json`,
            field: 'payload',
            message: `${r.payload} differs from the stored payload ${s.payload} of this release`,
          });
      }
      if (conflicts.length) throw new ImportRejected(conflicts);
      if (prune) await tx.imports.forgetImported();

      const releases = tree.releases.filter((r) => changedSinceImport('release', `${r.arch}/${r.version}`, r));
      summary.releases.unchanged += tree.releases.length - releases.length;
      for (const outcome of await tx.releases.upsertAll(releases, at, stored)) summary.releases[outcome] += 1;

      const storedChannels = new Map((await tx.channels.all()).map((c) => [`${channelKind(c)}/${c.name}`, c]));
      for (const c of tree.channels) {
        const key = `${channelKind(c)}/${c.name}`;
        const before = previous.get(`channel/${key}`);
        const value = {
          versions: c.versions,
          feeder: c.feeder ?? null,
          tombstones: c.tombstones,
          ...(c.phasing && { phasing: c.phasing }),
        };
        if (!changedSinceImport('channel', key, value)) summary.channels.unchanged += 1;
        else
          summary.channels[
            await tx.channels.upsert(prune ? c : mergeChannel(c, storedChannels.get(key), before), at)
          ] += 1;
      }

      const edges = tree.blockedEdges.filter((e) => changedSinceImport('blocked_edge', e.id, e));
      summary.blockedEdges.unchanged += tree.blockedEdges.length - edges.length;
      for (const outcome of await tx.blockedEdges.upsertAll(edges, at)) summary.blockedEdges[outcome] += 1;

      const rawBefore = await tx.rawMetadata.all();
      const rawPut: Array<[string, Record<string, string>]> = [];
      for (const [version, md] of Object.entries(tree.rawMetadata)) {
        if (!changedSinceImport('raw_metadata', version, md)) {
          summary.rawMetadata.unchanged += 1;
          continue;
        }
        const before = rawBefore[version];
        const outcome = !before ? 'added' : JSON.stringify(before) === JSON.stringify(md) ? 'unchanged' : 'changed';
        summary.rawMetadata[outcome] += 1;
        if (outcome !== 'unchanged') rawPut.push([version, md]);
      }
      await tx.rawMetadata.put(rawPut);
      await tx.imports.rememberImported(remembered);

      if (prune) await pruneTo(tx, tree, rawBefore, summary);
      const recorded = {
        releases: summary.releases,
        channels: summary.channels,
        blockedEdges: summary.blockedEdges,
        rawMetadata: summary.rawMetadata,
        signatures: summary.signatures,
        prune,
      };
      await tx.imports.record({
        contentHash: tree.contentHash,
        source: opts.source,
        schemaVersion: tree.schemaVersion,
        at,
        summary: recorded,
        fingerprint: opts.fingerprint,
      });
      await tx.audit.record({
        at,
        actor: opts.actor ?? 'import',
        action: 'import',
        target: opts.source,
        before: undefined,
        after: { contentHash: tree.contentHash, ...recorded },
        reason: null,
      });
      return summary;
    });
  }

  /**
   * Makes the releases scraped from `repository` equal to `found`, in one transaction, and audits a change.
   * A conflict with a release of another source writes nothing and throws ImportRejected.
   */
  applyScrape(repository: string, found: Release[]): Promise<ScrapeChanges> {
    const at = new Date(this.clock.now()).toISOString();
    return this.write(async (tx) => {
      const { changes, conflicts } = await tx.registry.replace(repository, found, at);
      if (conflicts.length) throw new ImportRejected(conflicts);
      if (changes.added || changes.changed || changes.removed)
        await tx.audit.record({
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

  private transaction<T>(
    mode: 'read' | 'write',
    fn: (tx: StoreTx) => Promise<T>,
    options: { unserved?: boolean } = {},
  ): Promise<T> {
    if (this.inside.getStore())
      return Promise.reject(new Error('a store transaction was started inside another: pass the StoreTx down instead'));
    return this.inside.run(true, () => this.database.transaction(mode, (sql) => fn(new StoreTx(sql)), options));
  }
}

export interface StoreListener {
  /** Another process or replica wrote; `scope` when it said it changed these channels only. */
  changed(scope?: { channels: ChannelRef[] }): void;
  health(problem: string | undefined): void;
}

/** The channels a notice of changedOnly names; undefined for any other notice (anything may have changed). */
function channelsOf(notice: string | undefined): { channels: ChannelRef[] } | undefined {
  if (notice === undefined) return undefined;
  try {
    const { channels } = JSON.parse(notice) as { channels?: unknown };
    const valid =
      Array.isArray(channels) &&
      channels.every(
        (c: Partial<ChannelRef>) => (c.kind === 'public' || c.kind === 'internal') && typeof c.name === 'string',
      );
    return valid ? { channels: channels as ChannelRef[] } : undefined;
  } catch {
    return undefined;
  }
}

/** Removes what the tree does not hold (import --prune), counting it in the summary. */
async function pruneTo(
  tx: StoreTx,
  tree: GraphDataTree,
  rawBefore: Record<string, unknown>,
  summary: ImportSummary,
): Promise<void> {
  const releases = new Set(tree.releases.map((r) => `${r.arch}/${r.version}`));
  for (const r of await tx.releases.all())
    if (!releases.has(`${r.arch}/${r.version}`) && (await tx.releases.delete(r.arch, r.version)))
      summary.releases.removed += 1;
  const channels = new Set(tree.channels.map((c) => `${channelKind(c)}/${c.name}`));
  for (const c of await tx.channels.all())
    if (!channels.has(`${channelKind(c)}/${c.name}`) && (await tx.channels.delete(channelKind(c), c.name)))
      summary.channels.removed += 1;
  const edges = new Set(tree.blockedEdges.map((e) => e.id));
  for (const e of await tx.blockedEdges.all())
    if (!edges.has(e.id) && (await tx.blockedEdges.delete(e.id))) summary.blockedEdges.removed += 1;
  // A scraped release the tree did not have is gone: the repository no longer holds it as its own.
  await tx.sql.run(
    'DELETE FROM scraped_releases WHERE NOT EXISTS (SELECT 1 FROM releases r ' +
      'WHERE r.arch = scraped_releases.arch AND r.version = scraped_releases.version)',
  );
  for (const version of Object.keys(rawBefore))
    if (!(version in tree.rawMetadata) && (await tx.rawMetadata.delete(version))) summary.rawMetadata.removed += 1;
}

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
    // Phased rollouts come from graph-data only: the tree's stand.
    ...(tree.phasing && { phasing: tree.phasing }),
  };
}

const zero = (): Counts => ({ added: 0, changed: 0, unchanged: 0, removed: 0 });
