// How the service starts, in two steps shared by `serve` and the tests. prepareService makes every
// part without reading the store, so `serve` can listen at once (/livez answers, /readyz says why it
// is not ready yet). start() then connects to the database (again and again, with a growing pause,
// while it cannot be reached), imports the graph-data tree when its content is new, reads the
// registry sources (the leading replica) or takes up what they left in the store (the others),
// builds the first snapshot, and from then on follows the writes other processes and replicas make.
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock, type Clock } from '../clock.js';
import { formatSeconds } from '../duration.js';
import type { Log } from '../log.js';
import { readGraphData, type ReadResult } from '../sources/graphData.js';
import { formatProblem } from '../validation/problems.js';
import { SchemaTooNew, StoreUnavailable } from '../store/sql.js';
import type { Leadership } from '../store/leadership.js';
import { redactedLocation } from '../store/postgresConnection.js';
import { ImportRejected, Store } from '../store/store.js';
import { createAdminServices, type AdminServices } from './admin/services.js';
import { DEMO_SOURCE, demoConflict, holdsDemo, isBundled } from './demoStore.js';
import { GraphService } from './graphService.js';
import { SignaturePolicy } from './signaturePolicy.js';
import { TrustStore, verifyTreeSignatures } from '../signatures/verify.js';
import type { ScrapeOptions } from '../sources/registryReleases.js';
import {
  registryClients,
  registrySources,
  SourceSettingsError,
  type RegistrySettings,
} from './refresh/fromSettings.js';
import { recallAll, refreshAll } from './refresh/loop.js';
import { FleetAlerts } from './fleet/fleetAlerts.js';
import { FleetReads } from './fleet/fleetReads.js';
import { DEFAULT_FLEET_SETTINGS, PollRecorder, type FleetRecorder, type FleetSettings } from './fleet/pollRecorder.js';
import { pollRecorderFor } from './fleet/workerPollRecorder.js';
import type { Source } from './refresh/source.js';
import type { ChangeSink } from '../store/changeSink.js';
import { DEFAULT_HISTORY_RETENTION_MS, HistoryRecorder } from './history/recorder.js';
import { DeliveryLoop, DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks/delivery.js';
import { Webhooks } from './webhooks/service.js';

/** The pauses between attempts to reach the database at start: doubling from the first to the last. */
export const CONNECT_BACKOFF_MS = { first: 500, last: 30_000 };

/** Every part of the service, made but not started. */
export interface PreparedService {
  ok: true;
  store: Store;
  service: GraphService;
  admin: AdminServices;
  /** The registry sources; a scheduler reads them again. */
  sources: Source[];
  /** Who runs the jobs that must run once (the sources' reads, auto-promotion). */
  leadership: Leadership;
  /**
   * The fleet: the poll recorder and the alerts of clusters newly exposed or stranded (undefined when
   * polls are not recorded), and the fleet API's reads.
   */
  fleet: { recorder: FleetRecorder | undefined; alerts: FleetAlerts | undefined; reads: FleetReads };
  /** Graph history: records every change of the served graph. */
  history: HistoryRecorder;
  /**
   * Where changes go, in the transaction that records them: graph history's and the fleet alerts'
   * (clusters newly exposed or stranded). Push a sink to add one.
   */
  changeSinks: ChangeSink[];
  /**
   * Webhooks: `sink` is the ChangeSink producers call in their write transactions (it queues deliveries
   * and wakes the loop); `delivery` is the loop, started by start() (unless `deliver: false`) and
   * stopped by close().
   */
  webhooks: Webhooks;
  /** Connects, imports, reads the sources and builds the first snapshot; see the file comment. */
  start(): Promise<StartOutcome>;
  /** Stops starting or following the database, and closes the registry clients, the build worker and the store. */
  close(): Promise<void>;
}

export type StartOutcome =
  | {
      ok: true;
      /** Resolves once every source was read the first time and the graph rebuilt (at once unless deferred). */
      firstRead: Promise<void>;
    }
  /** Nothing to serve: the tree is invalid and the store is empty, the schema is too new, or the first build failed. */
  | { ok: false; problems: string[] };

export type StartResult = (Omit<PreparedService, 'start'> & Extract<StartOutcome, { ok: true }>) | NotStarted;
type NotStarted = { ok: false; problems: string[] };

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
  /** A SQLite file, :memory:, or a postgres:// URL. */
  db: string;
  /** The most connections to PostgreSQL (default 10). */
  dbPoolSize?: number;
  /** `graphData` is the bundled demo: recorded as such, into a store that holds nothing else. */
  demo?: boolean;
  /** The bytes a SQLite store may grow to (none: the disk's). */
  dbMaxBytes?: number;
  log: Log;
  /** Keys that signatures in the tree are verified against (none: tree signatures are not stored). */
  trust?: TrustStore;
  requireSignatures?: boolean;
  /** The clock of the store, the graph service and the admin services (default: real time). */
  clock?: Clock;
  /** How polls are recorded; `record: false` (the default) records none, and the fleet API reads what is stored. */
  fleet?: Partial<FleetSettings> & { record?: boolean };
  /** How long graph history keeps changes (default 90 days). */
  historyRetentionMs?: number;
  /** Sinks that take every batch of changes (graph history's, the fleet alerts'), inside the transaction that stores it. */
  changeSinks?: ChangeSink[];
  /** How webhooks are delivered; `deliver: false` queues them without delivering (default: delivered). */
  webhooks?: Partial<WebhookSettings> & { deliver?: boolean };
}

/** Makes every part; problems when a setting or the store's file cannot be used. Reads nothing yet. */
export function prepareService(opts: StartOptions): PreparedService | NotStarted {
  const clock = opts.clock ?? systemClock;
  let clients: ReturnType<typeof registryClients>;
  try {
    clients = registryClients(opts.registry ?? {});
  } catch (err) {
    if (err instanceof SourceSettingsError) return { ok: false, problems: [err.message] };
    throw err;
  }
  const where = redactedLocation(opts.db);
  let store: Store;
  try {
    store = Store.at(opts.db, {
      clock,
      postgres: { poolSize: opts.dbPoolSize },
      ...(opts.dbMaxBytes && { sqlite: { maxBytes: opts.dbMaxBytes } }),
    });
  } catch (err) {
    void clients.close();
    return { ok: false, problems: [`the store ${where} cannot be opened: ${(err as Error).message}`] };
  }
  const trust = opts.trust ?? TrustStore.empty();
  const signatures = new SignaturePolicy(opts.requireSignatures ?? false, opts.trust);
  const service = new GraphService(store, { signatures, clock });
  const sources = registrySources(clients, opts.registry ?? {}, store, trust, clock, opts.log, opts.onScrapeProgress);
  service.sources = sources.map((s) => s.status);
  const leadership = store.leadership();
  if (store.engine === 'postgres') service.leadership = leadership;
  const stopped = new AbortController();
  let unwatch: (() => void) | undefined;
  const fleetSettings = { ...DEFAULT_FLEET_SETTINGS, ...opts.fleet };
  // How ids are stored (hashed or not), known on this thread whether or not it records the polls.
  const polls = new PollRecorder(store, clock, fleetSettings, opts.log);
  const recorder = opts.fleet?.record
    ? pollRecorderFor(store, clock, fleetSettings, opts.log, opts.dbMaxBytes)
    : undefined;
  const changeSinks: ChangeSink[] = [...(opts.changeSinks ?? [])];
  const history = new HistoryRecorder(
    store,
    clock,
    { retentionMs: opts.historyRetentionMs ?? DEFAULT_HISTORY_RETENTION_MS },
    opts.log,
    changeSinks,
  );
  history.follow(service);
  // Clusters newly exposed or stranded, looked for where polls are recorded: after a new graph and after polls are written.
  const alerts = recorder ? new FleetAlerts(store, service, clock, changeSinks, opts.log) : undefined;
  if (recorder && alerts) {
    service.onSwap(() => void alerts.check());
    recorder.onFlushed = () => alerts.afterPolls();
  }
  const reads = new FleetReads(store, service, clock, recorder, (id) => polls.storedId(id));
  const fleet = { recorder, alerts, reads };
  const delivery = new DeliveryLoop(store, clock, { ...DEFAULT_WEBHOOK_SETTINGS, ...opts.webhooks }, opts.log);
  const webhooks = new Webhooks(store, clock, delivery);
  // Every change graph history and the fleet alerts record is queued for the webhooks that want it.
  changeSinks.push(webhooks.sink);

  const start = async (): Promise<StartOutcome> => {
    try {
      return await startParts();
    } catch (err) {
      return { ok: false, problems: [`the service could not start: ${(err as Error).message}`] };
    }
  };
  // Connects (migrating), then starts; while the database cannot be reached, at first or on the way
  // (StoreUnavailable), it is waited for with a growing pause, the service saying why meanwhile.
  const startParts = async (): Promise<StartOutcome> => {
    for (let pause = CONNECT_BACKOFF_MS.first; ; pause = Math.min(pause * 2, CONNECT_BACKOFF_MS.last)) {
      let connected = false;
      try {
        await store.connect();
        connected = true;
        service.startupProblem = undefined;
        return await startConnected();
      } catch (err) {
        if (err instanceof SchemaTooNew) return { ok: false, problems: [err.message] };
        if (!(err instanceof StoreUnavailable)) {
          if (connected) throw err;
          return { ok: false, problems: [`the store ${where} cannot be used: ${(err as Error).message}`] };
        }
        service.startupProblem = `${err.message}; trying again in ${formatSeconds(pause)}`;
        opts.log.warn({ problem: service.startupProblem }, 'the database cannot be reached yet');
        await sleep(pause, undefined, { signal: stopped.signal }).catch(() => {});
        if (stopped.signal.aborted) return { ok: false, problems: ['stopped before the database could be reached'] };
      }
    }
  };
  const startConnected = async (): Promise<StartOutcome> => {
    const fail = (problems: string[]): StartOutcome => ({ ok: false, problems });
    // The bundled tree is the demo however it is named.
    const demo = opts.demo === true || (opts.graphData !== undefined && isBundled(opts.graphData));
    const realSource = (opts.graphData !== undefined && !demo) || sources.length > 0;
    const conflict = await demoConflict(store, where, { demo, realSource });
    if (conflict) return fail([conflict]);
    service.demo = demo || (await holdsDemo(store));
    if (opts.graphData) {
      const read = opts.treeRead ?? readGraphData(opts.graphData);
      const source = demo ? DEMO_SOURCE : opts.graphData;
      const problems = await importTree(store, opts.graphData, source, read, trust, opts.log, new Date(clock.now()));
      if (problems.length) {
        if (!(await store.read((tx) => tx.hasContent())))
          return fail([`${opts.graphData} is invalid and the store ${where} has nothing to serve:`, ...problems]);
        opts.log.error({ problems }, `graph-data ${opts.graphData} rejected; serving what the store has`);
        service.lastImportFailure = {
          at: new Date(clock.now()).toISOString(),
          message: `${opts.graphData}: ${problems.length} problem(s)`,
          problems: problems.slice(0, 100),
        };
      }
    }
    // A source that cannot be read at start leaves what the store has serving; /readyz says why.
    await recallAll(sources);
    const readSources = async (): Promise<boolean> =>
      sources.length > 0 && (await leadership.holds()) && refreshAll(sources);
    if (!opts.deferSources) await readSources();
    if (!(await service.rebuild())) return fail([`graph build failed: ${service.lastBuildFailure?.message}`]);
    service.warm();
    recorder?.start();
    if (opts.webhooks?.deliver !== false) delivery.start();
    // What other processes and replicas write from here on is noticed and built.
    unwatch = store.watch({
      changed: (scope) => {
        opts.log.info({ generation: store.generation }, 'the database was changed by another process; rebuilding');
        void service.refresh(scope);
        // A replica that does not read the sources is ready once the one that does has stored what they hold.
        if (sources.some((s) => !s.status.ready)) void recallAll(sources);
      },
      health: (problem) => {
        service.databaseProblem = problem;
        if (problem) opts.log.error({ problem }, 'the database cannot be reached; serving the last graph');
        else opts.log.info({}, 'the database can be reached again');
      },
    });
    const snap = service.current!;
    opts.log.info(
      { releases: snap.graph.nodes.length, channels: snap.channels.size, buildSeconds: snap.buildSeconds },
      'graph built',
    );
    const firstRead = opts.deferSources
      ? readSources().then(async (changed) => {
          if (!changed) return;
          // Set in the same tick the sources turn ready, so /readyz never says ready before their graph is served.
          service.applyingFirstRead = true;
          await service.refresh();
          service.applyingFirstRead = false;
        })
      : Promise.resolve();
    return { ok: true, firstRead };
  };

  return {
    ok: true,
    store,
    service,
    admin: createAdminServices(store, service, { clock, trust: opts.trust }),
    sources,
    leadership,
    fleet,
    history,
    changeSinks,
    webhooks,
    start,
    close: async () => {
      stopped.abort();
      unwatch?.();
      // The polls of the last seconds are written while the store is still open.
      await recorder?.close().catch(() => {});
      await history.close();
      await alerts?.close();
      // Deliveries in flight finish (or time out) and are recorded while the store is still open.
      await delivery.close().catch(() => {});
      await clients.close();
      await service.close();
      await leadership.release();
      await store.close();
    },
  };
}

/** prepareService and start() in one: resolves once the first graph is built, or with the problems. */
export async function startService(opts: StartOptions): Promise<StartResult> {
  const prepared = prepareService(opts);
  if (!prepared.ok) return prepared;
  const { start, ...parts } = prepared;
  const outcome = await start();
  if (!outcome.ok) {
    await prepared.close();
    return outcome;
  }
  return { ...parts, ...outcome };
}

/**
 * Takes the read tree, verifies and imports it; returns the problems that rejected it, none when it was imported.
 * Whatever fails on the way (a problem of the tree, a limit, an exception anywhere in reading or
 * storing) rejects the import, whose transaction then writes nothing, and the caller keeps serving
 * what the store has; only a database that cannot be reached throws (StoreUnavailable).
 */
async function importTree(
  store: Store,
  graphData: string,
  /** What the import is recorded as coming from (the path, or DEMO_SOURCE). */
  source: string,
  treeRead: Promise<ReadResult>,
  trust: TrustStore,
  log: Log,
  now: Date,
): Promise<string[]> {
  try {
    const read = await treeRead;
    for (const w of read.warnings) log.warn({ warning: formatProblem(w) }, 'graph-data warning');
    if (!read.tree) return read.errors.map(formatProblem);
    const signatures = await verifyTreeSignatures(read.tree.signatures, trust, now);
    for (const w of signatures.warnings) log.warn({ warning: formatProblem(w) }, 'graph-data signature refused');
    const summary = await store.importTree(read.tree, { source, signatures: signatures.verified });
    if (summary.skipped) log.info({ contentHash: summary.contentHash }, 'graph-data unchanged since the last import');
    else log.info({ summary }, 'graph-data imported');
    return [];
  } catch (err) {
    if (err instanceof StoreUnavailable) throw err; // not the tree's fault: the start waits for the database
    if (err instanceof ImportRejected) return err.problems.map(formatProblem);
    return [`${graphData}: -: the import failed: ${err instanceof Error ? err.message : String(err)}`];
  }
}
