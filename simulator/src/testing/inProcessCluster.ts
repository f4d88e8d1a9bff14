// The mock cluster in the test's own process: its state, its simulated controllers, all on a ManualClock.
// Code under test (the update executor, the poller) talks to it through an in-memory ClusterApi, the same
// interface it uses on a real cluster, with no HTTP in between; the mock's API server also listens on a free
// port of 127.0.0.1 (plain HTTP) for what reaches a cluster over the wire (Prometheus scraping its metrics,
// say). A test moves time with
// `runUntil`: whenever everything under test waits on the clock and no request is under way, the
// controllers run and the clock jumps to the next wake-up, so an hour of cluster time takes a second or two.
// Requests are counted where the server sees them: while one task of a runlevel sleeps (a retry's backoff),
// the clock may move as another task is between two requests. Tests therefore assert outcomes and bounds
// (at least 40 minutes, less than 45), never an exact time. With `pullFrom`, payload Jobs pull release images
// from those registries as the mock-cluster command's do, and so does the single-node host with seed images;
// a pull under way holds the clock.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../clock/manual.js';
import { kubeconfig } from '../cli/mockCluster.js';
import type { ClusterClient } from 'cincy/cli/kubeconfig';
import { seedInventory, type InventoryOptions } from '../controllers/inventory.js';
import { clusterMetrics } from '../controllers/metrics.js';
import { SCENARIO } from '../controllers/scenario.js';
import { mockClusterServer } from '../apiserver/server.js';
import { reconcile } from '../controllers/simulation.js';
import { kindNamed, type StoredObject } from '../apiserver/kinds.js';
import { KubeError } from '../apiserver/kubeError.js';
import { InMemoryClusterApi, type ApiCall } from '../apiserver/memoryApi.js';
import { ClusterState } from '../apiserver/state.js';
import { PayloadPuller } from '../controllers/payloadPuller.js';
import { SeedPuller } from '../controllers/seedPuller.js';
import { PayloadStore } from 'cincy/payload/store';
import type { ClusterVersion } from 'cincy/agent/clusterVersion';

/** An API failure to inject: requests matching `method` and `path` answer `status` (`times` times; default always). */
export interface Fault {
  method?: string;
  path: RegExp;
  status: number;
  times?: number;
}

export interface InProcessOptions extends Omit<InventoryOptions, 'arch'> {
  arch?: string;
  payloadStore: string;
  /**
   * Payload Jobs pull release images missing from the store from these registries (host:port, plain HTTP); the
   * single-node host pulls seed images over plain HTTP from them (over HTTPS from any other).
   */
  pullFrom?: string[];
  /** The scenario ConfigMap's structured keys: operators, nodes, nodeDefaults. */
  scenario?: Record<string, unknown>;
  clock?: ManualClock;
}

/** The longest jump of the clock in one step, so the controllers see the time pass in steps of this size. */
const MAX_STEP_MS = 10_000;
/** Event-loop turns with nothing happening before the code under test counts as waiting. */
const QUIET_TURNS = 5;

export class InProcessCluster {
  readonly requests: Array<{ method: string; path: string }> = [];
  private readonly faults: Array<Fault & { left: number }> = [];
  private readonly hooks: Array<{ method: string; path: RegExp; action: () => void }> = [];
  private inflight = 0;
  private activity = 0;
  private readonly identities = new WeakMap<object, string>();

  private constructor(
    readonly state: ClusterState,
    readonly clock: ManualClock,
    private readonly server: Server,
    readonly url: string,
    private readonly payloadStore: string,
    /** The tokens the server accepts: one per client. */
    private readonly tokens: Set<string>,
    /** The payload Jobs' pulls, when the cluster pulls from registries. */
    readonly puller: PayloadPuller | undefined,
    /** The single-node host's seed image pulls (plain HTTP to the `pullFrom` registries). */
    readonly seedPuller: SeedPuller,
  ) {}

  static async start(o: InProcessOptions): Promise<InProcessCluster> {
    const clock = o.clock ?? new ManualClock();
    const state = new ClusterState();
    state.now = () => clock.now();
    seedInventory(state, { arch: 'amd64', ...o });
    if (o.scenario) {
      const data = Object.fromEntries(Object.entries(o.scenario).map(([k, v]) => [k, JSON.stringify(v)]));
      state.patch(kindNamed('ConfigMap'), SCENARIO.namespace, SCENARIO.name, { data });
    }
    const made: { cluster?: InProcessCluster } = {};
    const tokens = new Set<string>();
    const server = mockClusterServer({
      state,
      now: () => clock.now(),
      tokens,
      metrics: () => clusterMetrics(state),
      intercept: (r) => made.cluster?.intercept(r),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const puller = o.pullFrom
      ? new PayloadPuller({ store: new PayloadStore(o.payloadStore), plainHttp: o.pullFrom, arch: o.arch ?? 'amd64' })
      : undefined;
    const seedPuller = new SeedPuller({ plainHttp: o.pullFrom, arch: o.arch ?? 'amd64' });
    const cluster = new InProcessCluster(state, clock, server, url, o.payloadStore, tokens, puller, seedPuller);
    made.cluster = cluster;
    server.prependListener('request', (req, res) => cluster.track(req.url ?? '', res));
    return cluster;
  }

  /**
   * A client of the cluster with an identity of its own, which `revoke` can take away: an in-memory API (no
   * HTTP) that sees the faults and hooks of every request.
   */
  client(fieldManager = 'cincy-agent'): ClusterClient {
    const token = this.token();
    const api = new InMemoryClusterApi(this.state, {
      fieldManager,
      intercept: (call) => {
        if (!this.tokens.has(token)) throw new KubeError(401, 'Unauthorized', 'Unauthorized');
        const refused = this.intercept(call);
        if (refused) throw refused;
      },
      track: (delta) => {
        this.inflight += delta;
        this.activity += 1;
      },
    });
    this.identities.set(api, token);
    return { api, origin: { server: 'the in-process cluster', credential: 'token', source: 'the test' } };
  }

  /** A bearer token the mock's HTTP server accepts (until it is revoked). */
  token(): string {
    const token = randomBytes(12).toString('hex');
    this.tokens.add(token);
    return token;
  }

  /** A kubeconfig (YAML) of the cluster's HTTP server, for a process (a CLI command) to reach it over the wire. */
  kubeconfig(): string {
    return kubeconfig(this.url, this.token());
  }

  /** Every later request of this client answers 401, as when its process is gone. */
  revoke(client: ClusterClient): void {
    this.tokens.delete(this.identities.get(client.api) ?? '');
  }

  fail(fault: Fault): void {
    this.faults.push({ ...fault, left: fault.times ?? Infinity });
  }

  /**
   * Runs `action` once, at the first request matching `method` and `path`, when the server has authenticated
   * it and before it serves it (to kill a client right after a request of its own).
   */
  onRequest(method: string, path: RegExp, action: () => void): void {
    this.hooks.push({ method, path, action });
  }

  cv(): ClusterVersion {
    return this.state.get(kindNamed('ClusterVersion'), undefined, 'version') as unknown as ClusterVersion;
  }

  get(kind: string, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.state.find(kindNamed(kind), namespace, name);
  }

  /** Runs the controllers at the current time (the pulls payload Jobs need are started first, as the host does). */
  reconcile(): void {
    this.puller?.start(this.state);
    this.seedPuller.start(this.state);
    const problems = reconcile(this.state, this.clock.now(), {
      payloadStore: this.payloadStore,
      pulls: this.puller,
      seedPulls: this.seedPuller,
    });
    if (problems.length) throw new Error(`simulation: ${problems.join('; ')}`);
  }

  /**
   * Moves time until `until` gives a value (read from the state: no request), at most `maxMs` of cluster
   * time. Each step waits until the code under test is waiting on the clock with no request under way.
   */
  async runUntil<T>(what: string, until: () => T | undefined | false | null, maxMs = 4 * 3600_000): Promise<T> {
    const deadline = this.clock.now() + maxMs;
    for (;;) {
      const found = until();
      if (found) return found;
      if (this.clock.now() > deadline)
        throw new Error(`${what}: not after ${maxMs / 60_000} minutes of cluster time; ${this.describe()}`);
      await this.settle(what);
      const settled = until();
      if (settled) return settled;
      this.reconcile();
      const next = this.clock.nextWake ?? this.clock.now() + MAX_STEP_MS;
      this.clock.advance(Math.min(Math.max(0, next - this.clock.now()), MAX_STEP_MS));
    }
  }

  /** Until everything under test waits on the clock and no request is under way (a few quiet turns in a row). */
  async settle(what = 'the cluster'): Promise<void> {
    const started = Date.now();
    let quiet = 0;
    let seen = this.activity;
    while (quiet < QUIET_TURNS) {
      await new Promise((resolve) => setImmediate(resolve));
      // A pull under way is work too: time stands still until it has ended.
      const still =
        this.inflight === 0 &&
        !this.puller?.pending &&
        !this.seedPuller.pending &&
        this.clock.sleepers > 0 &&
        this.activity === seen;
      quiet = still ? quiet + 1 : 0;
      seen = this.activity;
      if (Date.now() - started > 30_000)
        throw new Error(`${what}: the code under test neither waits on the clock nor finishes; ${this.describe()}`);
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private describe(): string {
    const c = this.cv().status.conditions ?? [];
    return `requests under way: ${this.inflight}; sleepers: ${this.clock.sleepers}; conditions: ${JSON.stringify(c.map((x) => [x.type, x.status, x.reason, (x.message ?? '').slice(0, 160)]))}`;
  }

  private intercept(r: ApiCall | { method: string; path: string }): KubeError | undefined {
    this.requests.push(r);
    const hook = this.hooks.findIndex((h) => h.method === r.method && h.path.test(r.path));
    if (hook >= 0) this.hooks.splice(hook, 1)[0]!.action();
    const fault = this.faults.find((f) => f.left > 0 && (f.method ?? r.method) === r.method && f.path.test(r.path));
    if (!fault) return undefined;
    fault.left -= 1;
    return new KubeError(
      fault.status,
      fault.status === 403 ? 'Forbidden' : 'InternalError',
      `injected failure of ${r.method} ${r.path}`,
    );
  }

  private track(url: string, res: { once(event: 'close', f: () => void): unknown }): void {
    if (/[?&]watch=(1|true)/.test(url)) return; // a watch stays open: it is no work under way
    this.inflight += 1;
    this.activity += 1;
    res.once('close', () => {
      this.inflight -= 1;
      this.activity += 1;
    });
  }
}
