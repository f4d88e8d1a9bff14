// What `serve` does before listening: open the store, import the graph-data tree when its content is
// new, read the registry sources once (or start reading them, for serve), and build the first snapshot. Shared by the CLI and the tests so
// both start the same way.
import { systemClock, type Clock } from '../clock.js';
import { readGraphData, type ReadResult } from '../sources/graphData.js';
import { formatProblem } from '../validation/problems.js';
import { ImportRejected, Store } from '../store/store.js';
import { createAdminServices, type AdminServices } from './admin/services.js';
import { GraphService } from './graphService.js';
import { SignaturePolicy } from './signaturePolicy.js';
import { TrustStore, verifyTreeSignatures } from '../signatures/verify.js';
import type { ScrapeOptions } from '../sources/registryReleases.js';
import {
  registryClients,
  registrySources,
  SourceSettingsError,
  type RegistrySettings,
} from './sources/fromSettings.js';
import { refreshAll } from './sources/refresh.js';
import { watchStore } from './storeWatch.js';
import type { Source } from './sources/source.js';

/** How long one attempt of a write blocks on another process's write lock before it yields and retries. */
const WRITE_LOCK_POLL_MS = 25;

export interface StartLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export type StartResult =
  | {
      ok: true;
      store: Store;
      service: GraphService;
      admin: AdminServices;
      /** The registry sources; a scheduler reads them again. */
      sources: Source[];
      /** Resolves once every source was read the first time and the graph rebuilt (at once unless deferred). */
      firstRead: Promise<void>;
      /** Stops watching the database and closes the registry clients and the build worker. */
      close(): Promise<void>;
    }
  /** Nothing to serve: the tree is invalid and the store is empty, or the first build failed. */
  | { ok: false; problems: string[] };

export interface StartOptions {
  /** A graph-data directory or .tar.gz, imported once at start. */
  graphData?: string;
  /**
   * The tree at graphData, already being read (serve starts reading it in a worker thread before it
   * loads the rest of itself); by default it is read here.
   */
  treeRead?: Promise<ReadResult>;
  /**
   * Registry sources (release images, a graph-data image), read once before the first build; with
   * `deferSources`, after it instead (the server listens meanwhile, /readyz 503 until they are read).
   */
  deferSources?: boolean;
  /** See deferSources. */
  registry?: RegistrySettings;
  onScrapeProgress?: ScrapeOptions['onProgress'];
  db: string;
  log: StartLog;
  /** Keys that signatures in the tree are verified against (none: tree signatures are not stored). */
  trust?: TrustStore;
  requireSignatures?: boolean;
  /** The clock of the store, the graph service and the admin services (default: real time). */
  clock?: Clock;
}

export async function startService(opts: StartOptions): Promise<StartResult> {
  const clock = opts.clock ?? systemClock;
  let clients;
  try {
    clients = registryClients(opts.registry ?? {});
  } catch (err) {
    if (err instanceof SourceSettingsError) return { ok: false, problems: [err.message] };
    throw err;
  }
  const store = Store.open(opts.db, { clock });
  const trust = opts.trust ?? TrustStore.empty();
  const signatures = new SignaturePolicy(opts.requireSignatures ?? false, opts.trust);
  const service = new GraphService(store, { signatures, clock });
  const fail = async (problems: string[]): Promise<StartResult> => {
    await clients.close();
    store.close();
    return { ok: false, problems };
  };
  if (opts.graphData) {
    const read = opts.treeRead ?? readGraphData(opts.graphData);
    const problems = await importTree(store, opts.graphData, read, trust, opts.log, new Date(clock.now()));
    if (problems.length) {
      if (!store.hasContent())
        return fail([`${opts.graphData} is invalid and the store ${opts.db} has nothing to serve:`, ...problems]);
      opts.log.error({ problems }, `graph-data ${opts.graphData} rejected; serving what the store has`);
      service.lastImportFailure = {
        at: new Date(clock.now()).toISOString(),
        message: `${opts.graphData}: ${problems.length} problem(s)`,
        problems: problems.slice(0, 100),
      };
    }
  }
  const sources = registrySources(clients, opts.registry ?? {}, store, trust, clock, opts.log, opts.onScrapeProgress);
  service.sources = sources.map((s) => s.status);
  // A source that cannot be read at start leaves what the store has serving; /readyz says why.
  if (!opts.deferSources) await refreshAll(sources);
  if (!service.rebuild()) return fail([`graph build failed: ${service.lastBuildFailure?.message}`]);
  const firstRead = opts.deferSources
    ? refreshAll(sources).then(async (changed) => {
        if (!changed) return;
        // Set in the same tick the sources turn ready, so /readyz never says ready before their graph is served.
        service.applyingFirstRead = true;
        await service.refresh();
        service.applyingFirstRead = false;
      })
    : Promise.resolve();
  // From here on the event loop serves requests: a write waits for another process's lock without
  // blocking it (see AuditedWrites.run), and that process's writes are noticed and rebuilt.
  store.setBusyTimeout(WRITE_LOCK_POLL_MS);
  const watch = store.db.memory ? undefined : watchStore(store, service, opts.log);
  const snap = service.current!;
  opts.log.info(
    { releases: snap.graph.nodes.length, channels: snap.channels.size, buildSeconds: snap.buildSeconds },
    'graph built',
  );
  return {
    ok: true,
    store,
    service,
    admin: createAdminServices(store, service, { clock, trust: opts.trust }),
    sources,
    firstRead,
    close: async () => {
      watch?.stop();
      await clients.close();
      await service.close();
    },
  };
}

/**
 * Takes the read tree, verifies and imports it; returns the problems that rejected it, none when it was imported.
 * Never throws: whatever fails on the way (a problem of the tree, a limit, an exception anywhere in
 * reading or storing) rejects the import, whose transaction then writes nothing, and the caller keeps
 * serving what the store has.
 */
async function importTree(
  store: Store,
  graphData: string,
  treeRead: Promise<ReadResult>,
  trust: TrustStore,
  log: StartLog,
  now: Date,
): Promise<string[]> {
  try {
    const read = await treeRead;
    for (const w of read.warnings) log.warn({ warning: formatProblem(w) }, 'graph-data warning');
    if (!read.tree) return read.errors.map(formatProblem);
    const signatures = await verifyTreeSignatures(read.tree.signatures, trust, now);
    for (const w of signatures.warnings) log.warn({ warning: formatProblem(w) }, 'graph-data signature refused');
    const summary = store.importTree(read.tree, { source: graphData, signatures: signatures.verified });
    if (summary.skipped) log.info({ contentHash: summary.contentHash }, 'graph-data unchanged since the last import');
    else log.info({ summary }, 'graph-data imported');
    return [];
  } catch (err) {
    if (err instanceof ImportRejected) return err.problems.map(formatProblem);
    return [`${graphData}: -: the import failed: ${err instanceof Error ? err.message : String(err)}`];
  }
}
