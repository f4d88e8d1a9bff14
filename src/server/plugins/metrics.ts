// Prometheus metrics: requests and serve duration per route, and the state of the served graph.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { phaseOf } from '../../graph/rollouts.js';
import { shareOf } from '../../app/rollouts/rolloutReads.js';
import type { GraphService } from '../../app/graphService.js';
import type { RequestMetrics } from '../requestMetrics.js';
import type { TlsMaterial } from '../tls.js';
import type { FleetRecorder } from '../../app/fleet/pollRecorder.js';

export interface MetricsOptions {
  service: GraphService;
  /** Where requests are counted: this plugin's hook, and the graph fast path, which answers before it. */
  requests: RequestMetrics;
  /** The certificate served, when over HTTPS (its expiry is reported). */
  tls?: { material: TlsMaterial };
  /** The poll recorder, when polls are recorded. */
  fleet?: FleetRecorder;
}

export const metricsPlugin = fp(async (app: FastifyInstance, opts: MetricsOptions) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cincy_' });
  const service = opts.service;
  opts.requests.register(registry);
  if (opts.fleet) registerFleetMetrics(registry, opts.fleet);
  new Gauge({
    name: 'cincy_graph_releases',
    help: 'Releases in the served graph, by architecture',
    labelNames: ['arch'],
    registers: [registry],
    collect() {
      this.reset();
      const counts = new Map<string, number>();
      for (const n of service.current?.graph.nodes ?? []) counts.set(n.arch, (counts.get(n.arch) ?? 0) + 1);
      for (const [arch, n] of counts) this.set({ arch }, n);
    },
  });
  new Gauge({
    name: 'cincy_phased_update_rollout',
    help:
      'The share of its clusters each phased rollout offers its edges to, 0 to 1 over its window (frozen while ' +
      'halted), for rollouts not cancelled nor over; from is the pattern of its sources',
    labelNames: ['channel', 'from', 'to'],
    registers: [registry],
    collect() {
      this.reset();
      const now = service.clock.now();
      for (const r of service.current?.rollouts ?? []) {
        const phase = phaseOf(r, now);
        if (phase === 'completed' || phase === 'cancelled') continue;
        this.set({ channel: r.channel, from: r.from ?? '.*', to: r.to }, shareOf(r, now));
      }
    },
  });
  new Gauge({
    name: 'cincy_graph_rollout_variants',
    help: 'Views of the served graph held for phased rollouts: one per channel, arch and set of rollouts a cluster has not reached (at most 16 per channel and arch)',
    registers: [registry],
    collect() {
      this.set(service.current?.rolloutVariants ?? 0);
    },
  });
  new Gauge({
    name: 'cincy_graph_last_successful_build_timestamp_seconds',
    help: 'When the served graph was built (Unix time)',
    registers: [registry],
    collect() {
      const at = service.current?.builtAt;
      if (at) this.set(at.getTime() / 1000);
    },
  });
  new Gauge({
    name: 'cincy_graph_build_duration_seconds',
    help: 'How long the build of the served graph took',
    registers: [registry],
    collect() {
      if (service.current) this.set(service.current.buildSeconds);
    },
  });
  new Counter({
    name: 'cincy_graph_builds_total',
    help:
      'Snapshots made: full builds on the main thread (an in-memory store; the first after an import at start) ' +
      'or the build worker, and updates ' +
      'derived from the last snapshot after writes that changed only channels',
    labelNames: ['how'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [how, n] of Object.entries(service.builds)) this.inc({ how }, n);
    },
  });
  new Counter({
    name: 'cincy_graph_build_failures_total',
    help: 'Graph builds that failed (the last good graph kept serving)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(service.buildFailures);
    },
  });
  new Gauge({
    name: 'cincy_database_up',
    help: '1 while the database can be reached and written (0: the last graph keeps serving, writes answer 503 or, full, 507)',
    registers: [registry],
    collect() {
      this.set(service.databaseProblem || service.startupProblem || service.store.fullProblem ? 0 : 1);
    },
  });
  new Gauge({
    name: 'cincy_database_full',
    help: '1 while the last write failed for want of room (a full disk, or --db-max-size); writes answer 507',
    registers: [registry],
    collect() {
      this.set(service.store.fullProblem ? 1 : 0);
    },
  });
  if (opts.tls) {
    const tls = opts.tls;
    new Gauge({
      name: 'cincy_tls_certificate_expiry_timestamp_seconds',
      help: 'When the certificate served expires (Unix time); it follows the files as they are reloaded',
      registers: [registry],
      collect() {
        this.set(tls.material.notAfter.getTime() / 1000);
      },
    });
  }
  new Gauge({
    name: 'cincy_leader',
    help: '1 on the replica that runs the jobs that run once (auto-promotion, registry scrapes); a SQLite store always leads',
    registers: [registry],
    collect() {
      this.set(service.leadership === undefined || service.leadership.leading ? 1 : 0);
    },
  });
  new Gauge({
    name: 'cincy_graph_import_failing',
    help: '1 while the graph-data tree given at start could not be imported',
    registers: [registry],
    collect() {
      this.set(service.lastImportFailure ? 1 : 0);
    },
  });

  // The registry sources: reads, failures, how long the last took, what it found, when it last succeeded.
  // Counts kept by the sources are reported as counters (reset, then set to the count, at each scrape).
  type SourceValue = (s: (typeof service.sources)[number]) => number | undefined;
  const perSource = (name: string, help: string, value: SourceValue, counter = false): void => {
    const report = (set: (labels: { source: string; kind: string }, v: number) => void): void => {
      for (const s of service.sources) {
        const v = value(s);
        if (v !== undefined) set({ source: s.name, kind: s.kind }, v);
      }
    };
    const common = { name, help, labelNames: ['source', 'kind'] as const, registers: [registry] };
    if (counter)
      new Counter({
        ...common,
        collect() {
          this.reset();
          report((labels, v) => this.inc(labels, v));
        },
      });
    else
      new Gauge({
        ...common,
        collect() {
          this.reset();
          report((labels, v) => this.set(labels, v));
        },
      });
  };
  perSource('cincy_source_reads_total', 'Reads (scrapes) of a registry source', (s) => s.reads, true);
  perSource(
    'cincy_source_failures_total',
    'Reads of a registry source that failed (the last good graph kept serving)',
    (s) => s.failures,
    true,
  );
  perSource(
    'cincy_source_read_duration_seconds',
    'How long the last read of a registry source took',
    (s) => s.lastDurationSeconds,
  );
  perSource('cincy_source_releases', 'Releases the last good scrape of a release repository found', (s) => s.releases);
  perSource('cincy_source_failing', '1 while the last read of a registry source failed', (s) =>
    s.lastFailure ? 1 : 0,
  );
  perSource('cincy_source_flapping', '1 while a registry source flips back to answers it gave before', (s) =>
    s.flapping ? 1 : 0,
  );
  perSource(
    'cincy_source_answers_held_back_total',
    'Answers of a registry source held back as flips to an earlier answer (damping)',
    (s) => s.heldBack ?? 0,
    true,
  );
  perSource('cincy_source_reading', '1 while a read of a registry source is under way', (s) =>
    s.readingSince ? 1 : 0,
  );
  perSource(
    'cincy_source_reading_seconds',
    'How long the read of a registry source under way has taken so far (0 between reads)',
    (s) => (s.readingSince ? (Date.now() - Date.parse(s.readingSince)) / 1000 : 0),
  );
  perSource(
    'cincy_source_last_success_timestamp_seconds',
    'When a registry source was last read successfully (Unix time)',
    (s) => (s.lastSuccessAt ? Date.parse(s.lastSuccessAt) / 1000 : undefined),
  );

  app.addHook('onResponse', (request, reply, done) => {
    opts.requests
      .route(request.routeOptions.url ?? 'unmatched')
      .record(request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get(
    '/metrics',
    { schema: { summary: 'Prometheus metrics', tags: ['health'], produces: ['text/plain'] } },
    async (_req, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    },
  );
});

/** How graph requests were recorded, how the batch is written, and how many clusters wait in it. */
function registerFleetMetrics(registry: Registry, fleet: FleetRecorder): void {
  new Counter({
    name: 'cincy_fleet_polls_total',
    help: 'Graph requests answered, by what the poll recorder did with them: recorded, or not (no id, malformed, batch full)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ outcome: 'recorded' }, fleet.counts.recorded);
      this.inc({ outcome: 'no_id' }, fleet.counts.noId);
      this.inc({ outcome: 'malformed' }, fleet.counts.malformed);
      this.inc({ outcome: 'batch_full' }, fleet.counts.batchFull);
    },
  });
  new Counter({
    name: 'cincy_fleet_flushes_total',
    help: 'Writes of the batch of polls to the store, by result',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ result: 'ok' }, fleet.flushes.ok);
      this.inc({ result: 'failed' }, fleet.flushes.failed);
    },
  });
  new Counter({
    name: 'cincy_fleet_clusters_over_cap_total',
    help: 'New clusters left out at --fleet-max-clusters: no cluster unseen since their batch began was left to make room',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(fleet.flushes.overCap);
    },
  });
  new Counter({
    name: 'cincy_fleet_clusters_evicted_total',
    help: 'Clusters forgotten at --fleet-max-clusters to make room for new ones (those on probation first)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(fleet.flushes.evicted);
    },
  });
  new Counter({
    name: 'cincy_fleet_implausible_moves_total',
    help: 'Version changes of polling clusters not taken as updates (a version the graph lacks, another arch, a downgrade, a flip)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(fleet.flushes.implausible);
    },
  });
  new Gauge({
    name: 'cincy_fleet_pending_clusters',
    help: 'Clusters whose polls wait in memory for the next write',
    registers: [registry],
    collect() {
      this.set(fleet.pendingClusters);
    },
  });
  new Gauge({
    name: 'cincy_fleet_last_flush_seconds',
    help: 'How long the last write of the batch took',
    registers: [registry],
    collect() {
      this.set(fleet.flushes.lastSeconds);
    },
  });
}
