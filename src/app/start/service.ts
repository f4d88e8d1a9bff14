// How the service starts, in two steps shared by `serve` and the tests. prepareService makes every part
// without reading the store, one named step at a time, so `serve` can listen at once (/livez answers,
// /readyz says why it is not ready yet). start() then connects to the database (again and again, with a
// growing pause, while it cannot be reached) and builds the first graph (firstGraph.ts); from then on the
// service follows the writes other processes and replicas make. close() stops the parts in reverse.
import type { TreeRead } from '../../sources/treeAtStart.js';
import { systemClock, type Clock } from '../../clock.js';
import type { Log } from '../../log.js';
import type { ScrapeOptions } from '../../sources/registryReleases.js';
import { TrustStore } from '../../signatures/verify.js';
import type { ChangeSink } from '../../store/changeSink.js';
import type { Leadership } from '../../store/leadership.js';
import type { Store } from '../../store/store.js';
import { createAdminServices, type AdminServices } from '../admin/services.js';
import { GraphService } from '../graphService.js';
import { DEFAULT_HISTORY_RETENTION_MS, HistoryRecorder } from '../history/recorder.js';
import { registryClients, registrySources, type RegistryClients, type SourceSettings } from '../refresh/sources.js';
import type { Source } from '../refresh/source.js';
import { RolloutMonitor } from '../rollouts/monitor.js';
import { SignaturePolicy } from '../signaturePolicy.js';
import type { Webhooks } from '../webhooks/service.js';
import { firstGraph, type FirstGraphOptions, type FirstGraphParts, type StartOutcome } from './firstGraph.js';
import { fleetParts, type FleetParts, type FleetStepSettings } from './fleet.js';
import { connectStore, openStore, StartProblem, whileUnreachable, type StoreSettings } from './store.js';
import { webhookParts, type WebhookStepSettings } from './webhooks.js';

export type { StartOutcome } from './firstGraph.js';

export interface StartOptions extends Partial<Omit<StoreSettings, 'db'>> {
  /** A SQLite file, :memory:, or a postgres:// URL. */
  db: string;
  /** A graph-data directory or .tar.gz, imported once at start. */
  graphData?: string;
  /** The tree at graphData, as serve began reading it before it loaded the rest (sources/treeAtStart.ts). */
  treeRead?: TreeRead;
  /** `graphData` is the bundled demo: recorded as such, into a store that holds nothing else. */
  demo?: boolean;
  /** The registry sources (a graph-data image, release images), read once before the first build. */
  sources?: SourceSettings;
  /** Read the sources after the first build instead (the server listens meanwhile, /readyz 503 until then). */
  deferSources?: boolean;
  onScrapeProgress?: ScrapeOptions['onProgress'];
  log: Log;
  /** Keys that signatures are verified against (none: tree signatures are not stored). */
  trust?: TrustStore;
  requireSignatures?: boolean;
  /** The clock of the store, the graph service and the admin services (default: real time). */
  clock?: Clock;
  /** How polls are recorded; by default none is, and the fleet API reads what is stored. */
  fleet?: FleetStepSettings;
  /** How long graph history keeps changes (default 90 days). */
  historyRetentionMs?: number;
  /** Sinks that take every batch of changes (graph history's, the fleet alerts'), inside the transaction that stores it. */
  changeSinks?: ChangeSink[];
  /** How webhooks are delivered; `deliver: false` queues them without delivering (default: delivered). */
  webhooks?: WebhookStepSettings;
  /** This service's address as clusters reach it: a halted rollout's risk links there (default: http://localhost:8080). */
  publicUrl?: string;
  /** How often the rollout monitor counts the clusters of each rollout (default: 15 s; a stored report counts sooner). */
  rolloutCountEveryMs?: number;
}

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
  /** The poll recorder and the fleet alerts (undefined when polls are not recorded), and the fleet API's reads. */
  fleet: FleetParts;
  /** Graph history: records every change of the served graph. */
  history: HistoryRecorder;
  /** Where changes go, in the transaction that records them; push a sink to add one. */
  changeSinks: ChangeSink[];
  /** Webhooks: the sink producers call in their write transactions, the delivery loop and the API's service. */
  webhooks: Webhooks;
  /** Counts the clusters of each phased rollout and halts those whose clusters fail. */
  rollouts: RolloutMonitor;
  /** Connects and builds the first graph (firstGraph.ts). */
  start(): Promise<StartOutcome>;
  /** Stops starting or following the database, and closes every part and the store. */
  close(): Promise<void>;
}

const NO_SOURCES: SourceSettings = { client: {}, concurrency: 1 };

type NotStarted = { ok: false; problems: string[] };

/** Makes every part, step by step; problems when the store cannot be opened. Reads nothing yet. */
export function prepareService(opts: StartOptions): PreparedService | NotStarted {
  const clock = opts.clock ?? systemClock;
  const log = opts.log;
  const opened = openStore({ db: opts.db, poolSize: opts.poolSize, maxBytes: opts.maxBytes }, clock);
  if ('problem' in opened) return { ok: false, problems: [opened.problem] };
  const { store, where } = opened;
  const trust = opts.trust ?? TrustStore.empty();
  const signatures = new SignaturePolicy(opts.requireSignatures ?? false, opts.trust);
  const service = new GraphService(store, { signatures, clock });
  // The build worker loads itself on the other core while this thread makes the rest and the server,
  // unless the tree is imported first: its read has the other core then, this thread builds the first
  // graph after the import, and the worker is started once that graph is served (firstGraph.ts).
  if (!opts.treeRead?.importsFirst) service.warm();
  const leadership = store.leadership();
  if (store.engine === 'postgres') service.leadership = leadership;
  const sourceSettings = opts.sources ?? NO_SOURCES;
  const clients = registryClients(sourceSettings);
  const sources = registrySources(clients, sourceSettings, {
    store,
    trust,
    clock,
    log,
    onProgress: opts.onScrapeProgress,
  });
  service.sources = sources.map((s) => s.status);
  const changeSinks: ChangeSink[] = [...(opts.changeSinks ?? [])];
  const retentionMs = opts.historyRetentionMs ?? DEFAULT_HISTORY_RETENTION_MS;
  const history = new HistoryRecorder(store, clock, { retentionMs }, log, changeSinks);
  history.follow(service);
  const fleetOptions = { settings: opts.fleet, log, sinks: changeSinks, sqliteMaxBytes: opts.maxBytes };
  const fleet = fleetParts(store, service, clock, fleetOptions);
  const webhooks = webhookParts(store, clock, { settings: opts.webhooks, log, sinks: changeSinks });
  const background: Array<{ start(): void }> = fleet.recorder ? [fleet.recorder] : [];
  if (opts.webhooks?.deliver !== false) background.push(webhooks.delivery);

  const admin = createAdminServices(store, service, {
    clock,
    trust: opts.trust,
    sinks: changeSinks,
    publicUrl: opts.publicUrl ?? 'http://localhost:8080',
  });
  const rollouts = new RolloutMonitor(service, fleet.queries, admin.rollouts, clock, log, opts.rolloutCountEveryMs);
  background.push(rollouts);
  const parts = { store, where, service, sources, leadership, background, clients, fleet, history, webhooks, rollouts };
  const running = { stopped: new AbortController(), unwatch: undefined as (() => void) | undefined };
  return {
    ok: true,
    ...{ store, service, admin, sources, leadership, fleet, history, changeSinks, webhooks, rollouts },
    start: () => startParts(parts, running, { ...opts, trust, clock }),
    close: () => closeParts(parts, running),
  };
}

type Parts = FirstGraphParts &
  Pick<PreparedService, 'fleet' | 'history' | 'webhooks' | 'rollouts'> & { clients: RegistryClients };
type Running = {
  stopped: AbortController;
  unwatch: (() => void) | undefined;
  /** The import of the given tree after the first graph, while it runs: closing waits for it. */
  importing?: Promise<void>;
};

/** Connects (waiting while the database cannot be reached), then builds the first graph. */
async function startParts(parts: Parts, running: Running, opts: FirstGraphOptions): Promise<StartOutcome> {
  const waiting = (problem: string): void => {
    parts.service.startupProblem = problem;
    opts.log.warn({ problem }, 'the database cannot be reached yet');
  };
  const attempt = async (): Promise<StartOutcome> => {
    await connectStore(parts.store, parts.where);
    parts.service.startupProblem = undefined;
    const started = await firstGraph(parts, opts);
    running.unwatch = started.unwatch;
    running.importing = started.importing;
    return started.outcome;
  };
  try {
    return await whileUnreachable(attempt, waiting, running.stopped.signal);
  } catch (err) {
    if (err instanceof StartProblem) return { ok: false, problems: [err.message] };
    return { ok: false, problems: [`the service could not start: ${(err as Error).message}`] };
  }
}

/** Stops starting and following the database, then closes the parts in the reverse of their making. */
async function closeParts(parts: Parts, running: Running): Promise<void> {
  running.stopped.abort();
  running.unwatch?.();
  await running.importing; // never rejects: a failure is logged and reported on /readyz
  // The polls of the last seconds are written while the store is still open.
  await parts.fleet.recorder?.close().catch(() => {});
  await parts.history.close();
  await parts.fleet.alerts?.close();
  await parts.rollouts.close();
  await parts.fleet.queries.close();
  // Deliveries in flight finish (or time out) and are recorded while the store is still open.
  await parts.webhooks.delivery.close().catch(() => {});
  await parts.clients.close();
  await parts.service.close();
  await parts.leadership.release();
  await parts.store.close();
}
