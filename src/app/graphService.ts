// Keeps the served snapshot: rebuilds from the store, swaps on success, and on failure keeps the
// last good graph and remembers why (readiness and metrics report it). Every graph it builds goes
// through the signature policy.
//
// Rebuilds after the first run off the request path (see build/builder.ts) and are coalesced: the
// writes committed while a build runs are all taken by the one build that follows it.
import { systemClock, type Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Failure, ImportFailure, SourceStatus } from '../schemas/health.js';
import type { GraphDataTarball } from '../sources/export.js';
import type { ChannelRef } from '../store/channels.js';
import { StoreUnavailable } from '../store/sql.js';
import type { Leadership } from '../store/leadership.js';
import type { Store } from '../store/store.js';
import { builderFor, type Builder } from './build/builder.js';
import { readAndBuild, type BuildParts } from './build/readAndBuild.js';
import { SignaturePolicy } from './signaturePolicy.js';
import { channelsAt } from '../graph/phasing.js';
import { GraphSnapshot } from './snapshot.js';
import { applyChannelChanges } from '../graph/channelUpdate.js';

/** The first and the longest pause before a failed build is tried again. */
const RETRY_FIRST_MS = 1000;
const RETRY_LAST_MS = 30_000;

export class GraphService {
  current: GraphSnapshot | undefined;
  lastBuildFailure: Failure | undefined;
  /** A graph-data tree that could not be imported at start, while an older state keeps serving. */
  lastImportFailure: ImportFailure | undefined;
  /** The graph-data given at start while it is read and imported after the first build (the store's graph serves meanwhile). */
  importing: string | undefined;
  buildFailures = 0;
  /**
   * Snapshots made: full builds by the thread they ran on (on the worker when the store is a file or
   * PostgreSQL, unless the worker could not; the first one on the main thread after an import at start
   * wrote the tree), and those derived from the last one after writes that changed only channels.
   */
  readonly builds = { main: 0, worker: 0, channels: 0 };
  /** The registry sources' status, kept up to date by the sources themselves. */
  sources: SourceStatus[] = [];
  /** True while what the sources' first read brought is being built (the service is not ready yet). */
  applyingFirstRead = false;
  /** Why the service has not started yet (the database cannot be reached). */
  startupProblem: string | undefined;
  /** Why the database cannot be reached now, while the last graph keeps serving. */
  databaseProblem: string | undefined;
  /** The store holds the bundled demo data (invented releases), not real data: /readyz says so. */
  demo = false;
  /** Who runs the jobs that run once, when replicas share the database (readiness and metrics report it). */
  leadership: Leadership | undefined;

  readonly signatures: SignaturePolicy;
  /** The time the service builds and serves by (phased rollouts offer edges by it). */
  readonly clock: Clock;
  private readonly builder: Builder;
  /** The build under way, and the one queued behind it (which takes every write made meanwhile). */
  private running: Promise<boolean> | undefined;
  private queued: Promise<boolean> | undefined;
  /** What the queued build must cover: the channels written, or everything. */
  private pending: { all: boolean; channels: Map<string, ChannelRef> } = { all: false, channels: new Map() };
  private tarball: { generation: number; made: Promise<GraphDataTarball> } | undefined;
  /** The pause before a failed build is tried again, and its timer. */
  private retryMs = RETRY_FIRST_MS;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    readonly store: Store,
    options: { signatures?: SignaturePolicy; clock?: Clock; builder?: Builder } = {},
  ) {
    this.signatures = options.signatures ?? SignaturePolicy.off();
    this.clock = options.clock ?? systemClock;
    this.builder = options.builder ?? builderFor(store);
  }

  /** The snapshot being served; a 503 for the caller when no graph has been built yet. */
  served(): GraphSnapshot {
    if (!this.current) throw new ApiError('service_unavailable', 'no graph has been built yet');
    return this.current;
  }

  /**
   * Builds and swaps the snapshot in; false (and the old one kept) on failure. For the first build: on
   * the build worker when there is one (a restart's graph built on the other core while this thread
   * gets the server ready), else, when the worker cannot, or when asked (`onThisThread`), on this thread,
   * where a database that cannot be read throws StoreUnavailable, for the start to try again.
   */
  async rebuild(o: { onThisThread?: boolean } = {}): Promise<boolean> {
    try {
      const vouched = await this.vouched();
      let parts = o.onThisThread ? undefined : await this.builtOnWorker(vouched);
      if (!parts) {
        this.builds.main += 1;
        parts = await readAndBuild(this.store, vouched, this.clock.now());
      }
      this.swap(GraphSnapshot.fromParts(parts, new Date(this.clock.now())));
      return true;
    } catch (err) {
      if (err instanceof StoreUnavailable) throw err;
      return this.failed(err);
    }
  }

  /** A build on the worker, or undefined when there is none or it failed (this thread says why then). */
  private async builtOnWorker(vouched: ReadonlySet<string> | undefined): Promise<BuildParts | undefined> {
    if (this.builder.thread !== 'worker') return undefined;
    try {
      const parts = await this.builder.build(vouched, this.clock.now());
      this.builds.worker += 1;
      return parts;
    } catch {
      return undefined;
    }
  }

  /**
   * A build that sees every write committed before this call, swapped in when it succeeds; resolves
   * to false (the old snapshot kept serving) when it fails. Calls made while a build runs share the
   * next one. `scope`: the write changed these channels and nothing else, so the next snapshot can
   * be derived from the current one (see graph/channelUpdate.ts) instead of built. Either way the
   * busiest views of the new snapshot are made ready before it is served.
   */
  refresh(scope?: { channels: ChannelRef[] }): Promise<boolean> {
    if (!scope) this.pending.all = true;
    else for (const c of scope.channels) this.pending.channels.set(`${c.kind}/${c.name}`, c);
    return this.buildPending();
  }

  /** Runs the next build of what is pending, or joins the one queued. */
  private buildPending(): Promise<boolean> {
    if (this.queued) return this.queued;
    const previous = this.running;
    const next = (async () => {
      await previous; // always a tick, so `queued` is set below before it is cleared here
      this.queued = undefined;
      const pending = this.pending;
      this.pending = { all: false, channels: new Map() };
      let snapshot: GraphSnapshot | undefined;
      try {
        if (!pending.all && this.current) snapshot = await this.derive([...pending.channels.values()]);
        if (!snapshot) {
          const vouched = await this.vouched();
          this.builds[this.builder.thread] += 1;
          snapshot = GraphSnapshot.fromParts(
            await this.builder.build(vouched, this.clock.now()),
            new Date(this.clock.now()),
          );
        }
        if (this.current) await snapshot.prepareFrom(this.current);
      } catch (err) {
        // What it was to take in (a write of another replica, say, while the database was away) is
        // taken by the next build, tried again after a pause.
        this.pending.all ||= pending.all;
        for (const [key, c] of pending.channels) this.pending.channels.set(key, c);
        this.retryLater();
        return this.failed(err);
      }
      this.retryMs = RETRY_FIRST_MS;
      this.swap(snapshot);
      return true;
    })();
    this.queued = next;
    this.running = next;
    void next.finally(() => {
      if (this.running === next) this.running = undefined;
    });
    return next;
  }

  /** Starts what builds run on (the build worker), so that no build waits for it to load. */
  warm(): void {
    this.builder.warm();
  }

  /** Resolves once every build asked for so far has finished (swapped in or failed). */
  async caughtUp(): Promise<void> {
    while (this.running) await this.running;
  }

  /** The store as a graph-data .tar.gz, made off the request path and again only after a write. */
  exportTarball(): Promise<GraphDataTarball> {
    if (this.tarball?.generation !== this.store.generation) {
      const made = this.builder.exportTarball();
      this.tarball = { generation: this.store.generation, made };
      // A failed one (the database away) is made again at the next request.
      made.catch(() => {
        if (this.tarball?.made === made) this.tarball = undefined;
      });
    }
    return this.tarball.made;
  }

  close(): Promise<void> {
    clearTimeout(this.retry);
    clearTimeout(this.nextStartTimer);
    this.closed = true;
    return this.builder.close();
  }

  private nextStartTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /**
   * A graph-data 2.x release enters its channel at its start: a build then serves it. Timers wait at
   * most a day at a time (a later start sets the next one), on real time.
   */
  private buildAtNextStart(at: number | undefined): void {
    clearTimeout(this.nextStartTimer);
    this.nextStartTimer = undefined;
    if (at === undefined || this.closed) return;
    const wait = Math.min(Math.max(at - this.clock.now(), 0) + 50, 86400_000);
    this.nextStartTimer = setTimeout(() => void this.refresh(), wait);
    this.nextStartTimer.unref();
  }

  /** Builds what is pending again after a pause, doubling from one failure to the next. */
  private retryLater(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.buildPending();
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_LAST_MS);
  }

  /**
   * The next snapshot from the current one with the channels re-read; undefined when that cannot
   * give exactly what a build would (the caller builds then).
   */
  private async derive(refs: ChannelRef[]): Promise<GraphSnapshot | undefined> {
    const old = this.current!;
    const started = process.hrtime.bigint();
    let auditMark = old.auditMark;
    let storeMark = old.storeMark;
    const changes = await this.store.read(async (tx) => {
      auditMark = await tx.audit.newestId();
      storeMark = await tx.history.storeGeneration();
      const read = [];
      for (const r of refs) {
        const members = await tx.channels.members(r.kind, r.name);
        const channel = await tx.channels.get(r.kind, r.name);
        // Served as at now: graph-data 2.x's timed versions enter at their start.
        const served = channel && channelsAt([channel], this.clock.now()).channels[0];
        read.push({ ...r, channel: served, members: new Map(members.map((m) => [m.version, new Date(m.addedAt)])) });
      }
      return read;
    });
    const update = applyChannelChanges(old.graph, old.input, old.membership, changes);
    if (!update) return undefined;
    this.builds.channels += 1;
    const { graph, input, membership, affected } = update;
    const buildSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const { rollouts, withheld, nextStart } = old;
    const parts = {
      ...{ graph, input, membership, buildSeconds, withheld, auditMark, storeMark, rollouts: [...rollouts] },
      ...(nextStart !== undefined && { nextStart }),
    };
    return GraphSnapshot.fromParts(parts, new Date(this.clock.now()), { from: old, changed: affected });
  }

  /** The digests the policy serves; undefined when it serves every release. */
  private async vouched(): Promise<ReadonlySet<string> | undefined> {
    if (!this.signatures.required) return undefined;
    return this.signatures.vouchedDigests(await this.store.read((tx) => tx.signatures.summaries()));
  }

  private swap(snapshot: GraphSnapshot): void {
    this.current = snapshot;
    this.buildAtNextStart(snapshot.nextStart);
    this.lastBuildFailure = undefined;
    for (const listener of this.swapListeners) listener(snapshot);
  }

  private readonly swapListeners: Array<(snapshot: GraphSnapshot) => void> = [];

  /** Calls `listener` with every snapshot swapped in from now on (it must not throw, nor wait). */
  onSwap(listener: (snapshot: GraphSnapshot) => void): void {
    this.swapListeners.push(listener);
  }

  /** Records a failed build; the snapshot served stays. */
  private failed(err: unknown): false {
    this.buildFailures += 1;
    this.lastBuildFailure = {
      at: new Date(this.clock.now()).toISOString(),
      message: err instanceof Error ? err.message : String(err),
    };
    return false;
  }
}
