// The first graph, once the store is connected: the demo kept apart from real data, the tree given at
// start imported, the registry sources taken up (and read, unless that is deferred), the graph built;
// then the background parts start and what other processes and replicas write is followed. A store
// whose last import was the given tree as it lies on disk now (the same fingerprint of its files)
// serves its graph first, and the tree (read meanwhile) is imported after, for the signatures that may
// have become verifiable: a restart on an unchanged tree answers before the tree is parsed.
import type { TreeRead } from '../../sources/treeAtStart.js';
import type { Clock } from '../../clock.js';
import type { Log } from '../../log.js';
import type { Leadership } from '../../store/leadership.js';
import type { Store } from '../../store/store.js';
import type { TrustStore } from '../../signatures/verify.js';
import type { ReadResult } from '../../sources/graphData.js';
import { treeFingerprint } from '../../sources/treeFingerprint.js';
import {
  DEMO_SOURCE,
  demoConflict,
  describeDemoConflict,
  holdsDemo,
  isBundled,
  type DemoConflict,
} from '../demoStore.js';
import type { GraphService } from '../graphService.js';
import { recallAll, refreshAll } from '../refresh/loop.js';
import type { Source } from '../refresh/source.js';
import { importGivenTree, type GivenTree } from './importTree.js';

export type StartOutcome =
  | {
      ok: true;
      /**
       * Resolves once every source was read the first time and the graph rebuilt (at once unless deferred),
       * and the tree given at start imported when that came after the first build.
       */
      firstRead: Promise<void>;
    }
  /** Nothing to serve: the tree is invalid and the store is empty, the schema is too new, or the first build failed. */
  | { ok: false; problems: string[]; demoConflict?: DemoConflict };

/** What the first graph is made from, and what it starts once built. */
export interface FirstGraphParts {
  store: Store;
  /** The store as messages show it. */
  where: string;
  service: GraphService;
  sources: Source[];
  leadership: Leadership;
  /** Started once the first graph is built: the poll recorder, the webhook delivery loop. */
  background: Array<{ start(): void }>;
}

export interface FirstGraphOptions {
  /** A graph-data directory or .tar.gz, imported once at start. */
  graphData?: string;
  /** The tree at graphData, as serve began reading it; by default it is read here when needed. */
  treeRead?: TreeRead;
  /** `graphData` is the bundled demo (the bundled tree is, however it is named). */
  demo?: boolean;
  /** Read the registry sources after the first build instead of before it. */
  deferSources?: boolean;
  trust: TrustStore;
  log: Log;
  clock: Clock;
}

/** Builds the first graph; resolves with what to wait for next, or why nothing can be served. */
export async function firstGraph(
  parts: FirstGraphParts,
  opts: FirstGraphOptions,
): Promise<{ outcome: StartOutcome; unwatch?: () => void; importing?: Promise<void> }> {
  const { store, service, sources } = parts;
  const fail = (problems: string[], conflict?: DemoConflict): { outcome: StartOutcome } => ({
    outcome: { ok: false, problems, ...(conflict && { demoConflict: conflict }) },
  });
  const demo = opts.demo === true || (opts.graphData !== undefined && isBundled(opts.graphData));
  const realSource = (opts.graphData !== undefined && !demo) || sources.length > 0;
  const conflict = await demoConflict(store, parts.where, { demo, realSource });
  if (conflict) return fail([describeDemoConflict(conflict)], conflict);
  service.demo = demo || (await holdsDemo(store));
  const tree = opts.graphData ? givenTree(opts, demo) : undefined;
  // Imported first unless the store's graph is already this tree's: then it serves meanwhile.
  const later = tree !== undefined && (await importedAsIs(store, tree));
  let wrote = false;
  if (tree && !later) {
    const imported = await importAtStart(parts, tree, opts);
    if ('problems' in imported) return fail(imported.problems);
    wrote = imported.wrote;
  }
  // A source that cannot be read at start leaves what the store has serving; /readyz says why.
  await recallAll(sources);
  const readSources = async (): Promise<boolean> =>
    sources.length > 0 && (await parts.leadership.holds()) && refreshAll(sources);
  if (!opts.deferSources) await readSources();
  // After an import that wrote the tree, this thread builds the first graph: it has just written what the build
  // reads and has made the server by then, while the worker would first read it all back from the database
  // (docs/design/writes-and-builds.md). Otherwise (a restart, an import skipped or rejected) the worker builds.
  if (!(await service.rebuild({ onThisThread: wrote })))
    return fail([`graph build failed: ${service.lastBuildFailure?.message}`]);
  // Ready for the next build, wherever this one ran (a start that imported did not start the worker).
  service.warm();
  for (const part of parts.background) part.start();
  const unwatch = followOtherWriters(parts, opts.log);
  const snap = service.current!;
  opts.log.info(
    { releases: snap.graph.nodes.length, channels: snap.channels.size, buildSeconds: snap.buildSeconds },
    'graph built',
  );
  const imported = tree && later ? importAfterFirstGraph(parts, tree, opts) : undefined;
  const firstRead = opts.deferSources ? readSources().then((changed) => applyFirstRead(service, changed)) : undefined;
  const settled = Promise.all([imported, firstRead]).then(() => {});
  return { outcome: { ok: true, firstRead: settled }, unwatch, importing: imported };
}

function givenTree(opts: FirstGraphOptions, demo: boolean): GivenTree {
  const path = opts.graphData!;
  let reading: Promise<ReadResult> | undefined;
  return {
    path,
    source: demo ? DEMO_SOURCE : path,
    // The tree reader (with its YAML parsers) is loaded only here when serve did not begin the read.
    read:
      opts.treeRead?.read ??
      (() => (reading ??= import('../../sources/graphData.js').then((m) => m.readGraphData(path)))),
    fingerprint: () => opts.treeRead?.fingerprint ?? treeFingerprint(path),
  };
}

/** Whether the store's last import was this tree, from this source, as its files lie on disk now. */
async function importedAsIs(store: Store, tree: GivenTree): Promise<boolean> {
  const last = await store.read((tx) => tx.imports.last());
  // The tree's files are hashed only when there is a fingerprint of this source's to compare with.
  if (last?.source !== tree.source || !last.fingerprint) return false;
  return last.fingerprint === tree.fingerprint();
}

/**
 * Imports the tree given at start before the first graph; whether that wrote to the store. A rejected tree
 * is logged and reported on /readyz while the store keeps serving what it has; with nothing stored, its
 * problems end the start.
 */
async function importAtStart(
  parts: FirstGraphParts,
  tree: GivenTree,
  opts: FirstGraphOptions,
): Promise<{ wrote: boolean } | { problems: string[] }> {
  const outcome = await importGivenTree(parts.store, tree, opts.trust, opts.log, new Date(opts.clock.now()));
  if ('changed' in outcome) return { wrote: outcome.changed };
  if (!(await parts.store.read((tx) => tx.hasContent())))
    return {
      problems: [`${tree.path} is invalid and the store ${parts.where} has nothing to serve:`, ...outcome.problems],
    };
  rejected(parts.service, tree, outcome.problems, opts);
  return { wrote: false };
}

/**
 * Imports the tree given at start after the first graph, built from what the store held (this very
 * tree), is served: the import is skipped by its content hash, and the graph built again only when
 * signatures it holds became verifiable; a rejected tree leaves it serving.
 */
async function importAfterFirstGraph(parts: FirstGraphParts, tree: GivenTree, opts: FirstGraphOptions) {
  const { service } = parts;
  service.importing = tree.path;
  try {
    const outcome = await importGivenTree(parts.store, tree, opts.trust, opts.log, new Date(opts.clock.now()));
    if (outcome.problems.length) rejected(service, tree, outcome.problems, opts);
    else if ('changed' in outcome && outcome.changed) await service.refresh();
  } catch (err) {
    // The database went away meanwhile: the graph (this tree's) keeps serving; the next start tries again.
    rejected(service, tree, [`${tree.path}: -: the import failed: ${(err as Error).message}`], opts);
  } finally {
    service.importing = undefined;
  }
}

function rejected(service: GraphService, tree: GivenTree, problems: string[], opts: FirstGraphOptions): void {
  opts.log.error({ problems }, `graph-data ${tree.path} rejected; serving what the store has`);
  service.lastImportFailure = {
    at: new Date(opts.clock.now()).toISOString(),
    message: `${tree.path}: ${problems.length} problem(s)`,
    problems: problems.slice(0, 100),
  };
}

/** The graph of the deferred first read, when it changed the store. */
async function applyFirstRead(service: GraphService, changed: boolean): Promise<void> {
  if (!changed) return;
  // Set in the same tick the sources turn ready, so /readyz never says ready before their graph is served.
  service.applyingFirstRead = true;
  await service.refresh();
  service.applyingFirstRead = false;
}

/** What other processes and replicas write from here on is noticed and built; returns the unwatch. */
function followOtherWriters(parts: FirstGraphParts, log: Log): () => void {
  const { store, service, sources } = parts;
  return store.watch({
    changed: (scope) => {
      log.info({ generation: store.generation }, 'the database was changed by another process; rebuilding');
      void service.refresh(scope);
      // A replica that does not read the sources is ready once the one that does has stored what they hold.
      if (sources.some((s) => !s.status.ready)) void recallAll(sources);
    },
    health: (problem) => {
      service.databaseProblem = problem;
      if (problem) log.error({ problem }, 'the database cannot be reached; serving the last graph');
      else log.info({}, 'the database can be reached again');
    },
  });
}
