// The fleet step: where polls are recorded (a worker thread for a store on a file or PostgreSQL, this
// thread for one in memory), the alerts of clusters newly exposed or stranded, and the fleet API's reads.
// With recording off, the reads serve what the store holds (what earlier runs and replicas recorded).
import type { Clock } from '../../clock.js';
import type { Log } from '../../log.js';
import type { ChangeSink } from '../../store/changeSink.js';
import type { Store } from '../../store/store.js';
import { FleetAlerts } from '../fleet/fleetAlerts.js';
import { FleetReads } from '../fleet/fleetReads.js';
import { fleetQueriesFor, type FleetQueries } from '../fleet/fleetQueries.js';
import { DEFAULT_FLEET_SETTINGS, PollRecorder, type FleetRecorder, type FleetSettings } from '../fleet/pollRecorder.js';
import { pollRecorderFor } from '../fleet/workerPollRecorder.js';
import type { GraphService } from '../graphService.js';

export type FleetStepSettings = Partial<FleetSettings> & {
  /** Record polls (default: no; the fleet API reads what is stored). */
  record?: boolean;
};

export interface FleetParts {
  /** Undefined when polls are not recorded. */
  recorder: FleetRecorder | undefined;
  /** Undefined when polls are not recorded. */
  alerts: FleetAlerts | undefined;
  reads: FleetReads;
  /** The store reads behind the reads and the alerts (a worker's, for a SQLite file): closed at shutdown. */
  queries: FleetQueries;
}

export function fleetParts(
  store: Store,
  service: GraphService,
  clock: Clock,
  options: { settings?: FleetStepSettings; log: Log; sinks: ChangeSink[]; sqliteMaxBytes?: number },
): FleetParts {
  const settings = { ...DEFAULT_FLEET_SETTINGS, ...options.settings };
  // How ids are stored (hashed or not), known on this thread whether or not it records the polls.
  const ids = new PollRecorder(store, clock, settings, options.log);
  const recorder = options.settings?.record
    ? pollRecorderFor(store, clock, settings, options.log, options.sqliteMaxBytes)
    : undefined;
  const queries = fleetQueriesFor(store);
  const reads = new FleetReads(queries, service, clock, recorder, (id) => ids.storedId(id));
  // Clusters newly exposed or stranded are looked for after a new graph and after polls are written;
  // what the reads kept is read again after polls are written.
  const alerts = recorder && new FleetAlerts(store, () => queries.groups(), service, clock, options.sinks, options.log);
  if (recorder) {
    if (alerts) service.onSwap(() => void alerts.check());
    recorder.onFlushed = () => {
      reads.forget();
      alerts?.afterPolls();
    };
  }
  return { recorder, alerts, reads, queries };
}
