// Prometheus metrics: requests and serve duration per route, and the state of the served graph.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GraphService } from '../../app/graphService.js';

export const metricsPlugin = fp(async (app: FastifyInstance, opts: { service: GraphService }) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cincy_' });
  const service = opts.service;

  const requests = new Counter({
    name: 'cincy_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'cincy_http_request_duration_seconds',
    help: 'Time to serve a request, by route',
    labelNames: ['route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
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
      'Snapshots made: full builds on the main thread (the first) or the build worker, and updates ' +
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
  perSource(
    'cincy_source_last_success_timestamp_seconds',
    'When a registry source was last read successfully (Unix time)',
    (s) => (s.lastSuccessAt ? Date.parse(s.lastSuccessAt) / 1000 : undefined),
  );

  // Label children are looked up once per label set, not hashed on every request.
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(v: number): void }>();
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${route} ${request.method} ${reply.statusCode}`;
    let counter = counters.get(key);
    if (!counter) counters.set(key, (counter = requests.labels(route, request.method, String(reply.statusCode))));
    counter.inc();
    let timer = timers.get(route);
    if (!timer) timers.set(route, (timer = duration.labels(route)));
    timer.observe(reply.elapsedTime / 1000);
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
