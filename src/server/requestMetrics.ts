// Requests counted and timed per route, method and status, in plain numbers: recording one costs an
// increment and a bucket search, on the fastify path and the graph fast path alike. They become the
// Prometheus metrics cincy_http_requests_total and cincy_http_request_duration_seconds (through
// prom-client) only when /metrics is read.
import { Counter, type Metric, type Registry } from 'prom-client';

/** Upper bounds of the duration buckets, seconds. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/** Requests of one route with one method and status. */
export class RequestCount {
  n = 0;
  constructor(
    readonly method: string,
    readonly status: number,
  ) {}
}

/** One route's requests: counts by method and status, and one histogram of durations. */
export class RouteRequests {
  private readonly counts = new Map<string, RequestCount>();
  /** Requests per bucket (not cumulative); the last one is over the largest bound (+Inf). */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  seconds = 0;
  requests = 0;

  constructor(readonly route: string) {}

  /** The counter of one method and status, to be kept by a caller that answers with it often. */
  count(method: string, status: number): RequestCount {
    const key = `${method} ${status}`;
    let c = this.counts.get(key);
    if (!c) this.counts.set(key, (c = new RequestCount(method, status)));
    return c;
  }

  /** Times one request already counted (RequestCount.n). */
  observe(seconds: number): void {
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    this.buckets[i]! += 1;
    this.seconds += seconds;
    this.requests += 1;
  }

  record(method: string, status: number, seconds: number): void {
    this.count(method, status).n += 1;
    this.observe(seconds);
  }

  allCounts(): Iterable<RequestCount> {
    return this.counts.values();
  }
}

export class RequestMetrics {
  private readonly routes = new Map<string, RouteRequests>();

  route(route: string): RouteRequests {
    let r = this.routes.get(route);
    if (!r) this.routes.set(route, (r = new RouteRequests(route)));
    return r;
  }

  /** Adds both metrics to a registry; their values are read from these counts at each scrape. */
  register(registry: Registry): void {
    const routes = this.routes;
    new Counter({
      name: 'cincy_http_requests_total',
      help: 'HTTP requests by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
      collect() {
        this.reset();
        for (const r of routes.values())
          for (const c of r.allCounts())
            if (c.n > 0) this.inc({ route: r.route, method: c.method, status: String(c.status) }, c.n);
      },
    });
    // prom-client has no histogram that takes counts made elsewhere: this metric gives the registry
    // its values through get(), the interface the registry reads every metric by (prom-client's own
    // cluster aggregator registers plain objects the same way), in the shape its Histogram gives.
    const name = 'cincy_http_request_duration_seconds';
    const durations = {
      name,
      help: 'Time to serve a request, by route',
      type: 'histogram',
      aggregator: 'sum',
      labelNames: ['route'],
      reset: () => {},
      get: () => ({
        name: durations.name,
        help: durations.help,
        type: durations.type,
        aggregator: durations.aggregator,
        values: [...routes.values()].filter((r) => r.requests > 0).flatMap((r) => histogramValues(name, r)),
      }),
    };
    registry.registerMetric(durations as unknown as Metric);
  }
}

/** The _bucket (cumulative, `le` first as prom-client writes it), _sum and _count lines of one route. */
function histogramValues(name: string, r: RouteRequests): Array<{ metricName: string; labels: object; value: number }> {
  const out = [];
  let cumulative = 0;
  for (let i = 0; i <= DURATION_BUCKETS.length; i++) {
    cumulative += r.buckets[i]!;
    const le = i < DURATION_BUCKETS.length ? DURATION_BUCKETS[i]! : '+Inf';
    out.push({ metricName: `${name}_bucket`, labels: { le, route: r.route }, value: cumulative });
  }
  out.push({ metricName: `${name}_sum`, labels: { route: r.route }, value: r.seconds });
  out.push({ metricName: `${name}_count`, labels: { route: r.route }, value: r.requests });
  return out;
}
