// A real Kubernetes API server for a test (kube-apiserver and etcd with OpenShift's CRDs, from
// ../shared/kube/start-apiserver.sh, or CINCY_KUBE_DIR): started in a folder of its own on free ports. Where it
// cannot start (no etcd, no shared folder), a test skips loudly; under CI=true it fails.
// A cluster's objects are cluster-scoped (one ClusterVersion named version), so two tests never use one
// server at once. One server serves the files of a vitest worker one after another (useRealApiServer: files
// of a worker run in turn and share their modules), and the tests of each: before each use but the first,
// `reset` deletes what the last cluster made there, so each test begins on a server that holds no cluster.
// The e2e tier's setup gives the folder these servers start in, and stops them all after the run.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import pLimit from 'p-limit';
import { clusterApi, loadKubeConfig } from '../../src/cli/kubeconfig.js';
import type { Patch, Resource } from '../../src/cluster/api.js';
import { isNotFound } from '../../src/cluster/apiError.js';
import { kubectl } from './kubectl.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the workers' shared API servers start, each in a folder of its own (global-setup.ts). */
    apiServersDir: string;
  }
}

export const KUBE_DIR = process.env.CINCY_KUBE_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'kube');
const START = join(KUBE_DIR, 'start-apiserver.sh');

/** True when the starter script is there (etcd it installs itself where it may); under CI=true its absence fails. */
export function realApiServerAvailable(): boolean {
  if (existsSync(START)) return true;
  if (process.env.CI === 'true')
    throw new Error(`${START} is missing (CI=true: nothing may skip; ../shared must be beside the clone)`);
  console.warn(`\n*** SKIPPING tests that need a real API server: ${START} not found (CINCY_KUBE_DIR) ***\n`);
  return false;
}

export interface RealApiServer {
  kubeconfig: string;
  /**
   * Deletes every object the server did not hold when it had started, namespaces aside (a bare API server never
   * finishes deleting a namespace: that is kube-controller-manager's work; the next cluster adopts them), and
   * puts back the CRDs it started with where they were replaced.
   */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

type Held = {
  apiVersion: string;
  kind: string;
  /** Where its kind is listed, patched and deleted. */
  resource: Resource;
  metadata: { name: string; namespace?: string; resourceVersion?: string; finalizers?: string[] };
};
/** The CRDs the server starts with (start-apiserver.sh creates them): put back when an update replaced them. */
const START_CRDS = join(KUBE_DIR, 'crds');
const keyOf = (o: Held): string => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Requests of a reset in flight at once, and the kubectl processes its deletes are shared among. */
const REQUESTS_IN_FLIGHT = 16;
const DELETE_PROCESSES = 4;
const nullFinalizers: Patch = { type: 'merge', body: { metadata: { finalizers: null } } };
/** An object deleted meanwhile is what a reset wants. */
const gone = (err: unknown): void => {
  if (!isNotFound(err)) throw err;
};

/**
 * The kinds of `kubectl api-resources -o wide --no-headers`: NAME [SHORTNAMES] APIVERSION NAMESPACED KIND VERBS
 * [CATEGORIES], where the columns in brackets may be empty; NAMESPACED is the first column that says true or
 * false. Each with the resource its objects are listed and deleted at.
 */
function parseApiResources(text: string): Array<{ apiVersion: string; kind: string; resource: Resource }> {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const cols = line.trim().split(/\s+/);
      const at = cols.findIndex((c, i) => i >= 2 && (c === 'true' || c === 'false'));
      if (at < 0 || !cols[at + 1]) throw new Error(`kubectl api-resources: a line not understood: ${line}`);
      const apiVersion = cols[at - 1]!;
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
      const resource = { group: group!, version: version!, resource: cols[0]!, namespaced: cols[at] === 'true' };
      return { apiVersion, kind: cols[at + 1]!, resource };
    });
}

/** Starts one in `dir`; the kubeconfig it prints is an admin's (system:masters), over TLS with its own CA. */
export async function startRealApiServer(
  dir: string,
  cleanup: { add(f: () => unknown): void },
): Promise<RealApiServer> {
  const stop = (): Promise<void> =>
    new Promise((resolve) => execFile(START, ['--stop', dir], { timeout: 30_000 }, () => resolve()));
  cleanup.add(stop);
  const kubeconfig = await new Promise<string>((resolve, reject) =>
    execFile(START, [dir], { timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`start-apiserver.sh failed: ${stderr || err.message}`));
      resolve(stdout.trim().split('\n').pop()!);
    }),
  );
  const run = async (args: string[], input?: string): Promise<string> => {
    const r = await kubectl(kubeconfig, args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.slice(0, 2).join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  // What the server holds is listed from this process, every kind side by side (kubectl's `get` of 57 kinds
  // took 0.75 s of a quiet machine, twice that under the tests' load): the kinds kubectl names, read once.
  const api = clusterApi(loadKubeConfig({ kubeconfig }), 'cincy-test-reset');
  const kinds = parseApiResources(await run(['api-resources', '--verbs=list,delete', '-o', 'wide', '--no-headers']));
  const inFlight = pLimit(REQUESTS_IN_FLIGHT);
  const held = async (): Promise<Held[]> => {
    const lists = await Promise.all(
      kinds.map(({ apiVersion, kind, resource }) =>
        inFlight(async () =>
          (await api.list<Pick<Held, 'metadata'>>(resource)).items.map((o) => ({ ...o, apiVersion, kind, resource })),
        ),
      ),
    );
    return lists.flat();
  };
  const started = await held();
  const baseline = new Set(started.map(keyOf));
  const isCrd = (x: Held): boolean => x.kind === 'CustomResourceDefinition';
  const crdVersions = new Map(started.filter(isCrd).map((x) => [keyOf(x), x.metadata.resourceVersion]));
  const reset = async (): Promise<void> => {
    const now = await held();
    // An update applies its payload's CRDs over the server's: the next test begins with the server's again.
    if (
      now.some((x) => isCrd(x) && crdVersions.has(keyOf(x)) && crdVersions.get(keyOf(x)) !== x.metadata.resourceVersion)
    ) {
      await run(['replace', '-f', START_CRDS]);
      for (const x of await held())
        if (isCrd(x) && crdVersions.has(keyOf(x))) crdVersions.set(keyOf(x), x.metadata.resourceVersion);
    }
    const made = now.filter((x) => x.kind !== 'Namespace' && !baseline.has(keyOf(x)));
    if (!made.length) return;
    // A bare API server has no garbage collector to take an orphan finalizer away (a Job deleted as the CVO
    // deletes its Jobs keeps one): finalizers go first.
    await Promise.all(
      made
        .filter((m) => m.metadata.finalizers?.length)
        .map(({ resource, metadata: { name, namespace } }) =>
          inFlight(() => api.patch(resource, { name, namespace }, nullFinalizers).catch(gone)),
        ),
    );
    const items = made.map(({ apiVersion, kind, metadata: { name, namespace } }) => ({
      apiVersion,
      kind,
      metadata: { name, namespace },
    }));
    // Through kubectl, for its --grace-period=0 --force: a pod bound to a node is otherwise kept Terminating
    // for a kubelet this server does not have. Not waited for one by one (kubectl's wait took 35 s for 200
    // objects): with no finalizer, each is gone once its DELETE is answered; a deleted CRD's own clean-up
    // takes its objects. kubectl deletes a list's items one after another: DELETE_PROCESSES of them share it.
    const share = Math.ceil(items.length / DELETE_PROCESSES);
    await Promise.all(
      Array.from({ length: Math.ceil(items.length / share) }, (_, i) =>
        run(
          ['delete', '-f', '-', '--grace-period=0', '--force', '--ignore-not-found', '--wait=false'],
          JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.slice(i * share, (i + 1) * share) }),
        ),
      ),
    );
  };
  return { kubeconfig, reset, stop };
}

let workerServer: Promise<RealApiServer> | undefined;
let workerServerUsed = false;

/**
 * The API server of this vitest worker, started by the first test that asks and reset before each later
 * one, in this file or the next; the e2e setup stops it after the run (stopApiServersIn).
 */
export function useRealApiServer(): () => Promise<RealApiServer> {
  return async () => {
    if (!workerServer) {
      const root = inject('apiServersDir');
      if (!root) throw new Error("no apiServersDir: the e2e tier's setup (global-setup.ts) gives it");
      workerServer = startRealApiServer(mkdtempSync(join(root, 'worker-')), { add: () => {} });
      // A failed start is not kept: the next test tries again, and says why itself.
      workerServer.catch(() => (workerServer = undefined));
    }
    const server = await workerServer;
    if (workerServerUsed) await server.reset();
    workerServerUsed = true;
    return server;
  };
}

/**
 * Stops every API server started under `root` (the run's apiServersDir), however its worker ended; waits
 * for each, so that a process about to exit on a signal may call it too.
 */
export function stopApiServersIn(root: string): void {
  if (!existsSync(root)) return;
  for (const dir of readdirSync(root)) {
    try {
      execFileSync(START, ['--stop', join(root, dir)], { timeout: 30_000, stdio: 'ignore' });
    } catch {
      // stopped already, or cannot be: nothing more to do here
    }
  }
}
