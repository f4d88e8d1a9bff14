// The store reads behind the fleet API, each one read transaction. Over 300,000 clusters the grouping
// ones take a good part of a second of SQLite's time, which would stall every request on the thread
// that runs them: a store on a file answers them on a worker thread of its own (fleetQueryWorker.ts,
// over a read-only connection); PostgreSQL does the work in its own processes; a store in memory can
// only be read where it lives.
import type { ClusterFilter, ClusterRecord, FleetGroup, ObservedUpdate } from '../../store/fleet.js';
import type {
  FleetReportRepository,
  OutcomeClock,
  OutcomeRow,
  OutcomeStats,
  StoredReport,
} from '../../store/fleetReports.js';
import type { Store } from '../../store/store.js';
import { JobWorker } from '../jobWorker.js';

/** One page of clusters with what the fleet shows of each: its updates, its last report and outcomes. */
export interface ClusterPage {
  rows: ClusterRecord[];
  history: Map<string, ObservedUpdate[]>;
  reports: Map<string, StoredReport>;
  outcomes: Map<string, OutcomeRow[]>;
}

export interface SummaryRows {
  groups: FleetGroup[];
  counts: Record<string, number>;
  reporting: number;
}

export interface UpdateRows {
  started: Array<{ from: string; to: string; arch: string; started: number }>;
  outcomes: OutcomeStats[];
}

export type RolloutRows = Awaited<ReturnType<FleetReportRepository['rolloutRows']>>;

export interface FleetQueries {
  /** The clusters by channel, arch and version (a last poll before `staleBefore` is stale), with the counts. */
  summaryRows(staleBefore: number): Promise<SummaryRows>;
  /** The clusters by channel, arch and version. */
  groups(): Promise<FleetGroup[]>;
  /** Up to `limit` clusters passing the filter, by id, with the history, report and outcomes of the first `shown`. */
  clusterPage(filter: ClusterFilter, limit: number, shown: number): Promise<ClusterPage>;
  /** The updates started since `since`, per edge and arch, and the outcomes reported. */
  updateRows(since: number, clock: OutcomeClock): Promise<UpdateRows>;
  /** The clusters of `channel` that started an edge into `to` since `since`, per source (store/fleetReports.ts). */
  rolloutRows(channel: string, to: string, since: number, clock: OutcomeClock): Promise<RolloutRows>;
  close(): Promise<void>;
}

/** The queries run by whoever calls them, on `store`. */
export function storeQueries(store: Store): FleetQueries {
  return {
    summaryRows: (staleBefore) =>
      store.read(async (tx) => ({
        groups: await tx.fleet.groups(staleBefore),
        counts: await tx.fleet.counts(),
        reporting: await tx.fleetReports.count(),
      })),
    groups: () => store.read((tx) => tx.fleet.groups(0)),
    clusterPage: (filter, limit, shown) =>
      store.read(async (tx) => {
        const rows = await tx.fleet.clusters(filter, limit);
        const ids = rows.slice(0, shown).map((r) => r.id);
        const history = new Map<string, ObservedUpdate[]>();
        for (const id of ids) history.set(id, await tx.fleet.historyOf(id));
        const reports = await tx.fleetReports.reportsOf(ids);
        const outcomes = new Map<string, OutcomeRow[]>();
        for (const id of reports.keys()) outcomes.set(id, await tx.fleetReports.outcomesOf(id));
        return { rows, history, reports, outcomes };
      }),
    updateRows: (since, clock) =>
      store.read(async (tx) => ({
        started: await tx.fleetReports.startedCounts(since),
        outcomes: await tx.fleetReports.outcomeStats(since, clock),
      })),
    rolloutRows: (channel, to, since, clock) =>
      store.read((tx) => tx.fleetReports.rolloutRows(channel, to, since, clock)),
    close: async () => {},
  };
}

/** A query to the worker: its name and arguments. */
export type FleetQueryJob = {
  [Q in Exclude<keyof FleetQueries, 'close'>]: { query: Q; args: Parameters<FleetQueries[Q]> };
}[Exclude<keyof FleetQueries, 'close'>];

// Compiled once for src and dist alike: the worker runs JavaScript, so tests on the sources use the build.
const WORKER_URL = new URL('../../../dist/app/fleet/fleetQueryWorker.js', import.meta.url);

/** Where the fleet's queries run for `store`: on a worker when it is a SQLite file. */
export function fleetQueriesFor(store: Store): FleetQueries {
  const location = store.database.location;
  if (location === undefined || store.engine === 'postgres') return storeQueries(store);
  const worker = new JobWorker<FleetQueryJob>(WORKER_URL, { location }, 'the fleet query worker');
  return {
    summaryRows: (...args) => worker.run({ query: 'summaryRows', args }),
    groups: (...args) => worker.run({ query: 'groups', args }),
    clusterPage: (...args) => worker.run({ query: 'clusterPage', args }),
    updateRows: (...args) => worker.run({ query: 'updateRows', args }),
    rolloutRows: (...args) => worker.run({ query: 'rolloutRows', args }),
    close: () => worker.close(),
  };
}
