// A real Kubernetes API server for a test (kube-apiserver and etcd with OpenShift's CRDs, from
// ../shared/kube/start-apiserver.sh, or CINCY_KUBE_DIR): started in a folder of its own on free ports, stopped
// by the cleanup. Where it cannot start (no etcd, no shared folder), a test skips loudly; under CI=true it fails.
// One server serves the tests of a file one after another (useRealApiServer): between two, `reset` deletes
// what the last cluster made there, so each test begins on a server that holds no cluster.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { kubectl } from './kubectl.js';
import { tempDir } from './server.js';

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
  metadata: { name: string; namespace?: string; resourceVersion?: string; finalizers?: string[] };
};
/** The CRDs the server starts with (start-apiserver.sh creates them): put back when an update replaced them. */
const START_CRDS = join(KUBE_DIR, 'crds');
const keyOf = (o: Held): string => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

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
  const resources = (await run(['api-resources', '--verbs=list,delete', '-o', 'name'])).trim().split('\n').join(',');
  const held = async (): Promise<Held[]> =>
    (JSON.parse(await run(['get', resources, '-A', '-o', 'json'])) as { items: Held[] }).items;
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
    const named = ({ apiVersion, kind, metadata: { name, namespace } }: Held): Held => ({
      apiVersion,
      kind,
      metadata: { name, namespace },
    });
    for (const x of made.filter((m) => m.metadata.finalizers?.length))
      await run(
        ['patch', '-f', '-', '--type=merge', '-p', '{"metadata":{"finalizers":null}}'],
        JSON.stringify(named(x)),
      );
    const items = made.map(named);
    // Not waited for one by one (kubectl's wait took 35 s for 200 objects): with no finalizer, each is gone
    // once its DELETE is answered; a deleted CRD's own clean-up takes its objects.
    await run(
      ['delete', '-f', '-', '--grace-period=0', '--force', '--ignore-not-found', '--wait=false'],
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items }),
    );
  };
  return { kubeconfig, reset, stop };
}

/**
 * One real API server for the tests of the calling file, started by the first that asks and reset for each
 * one after; stopped after the file's tests.
 */
export function useRealApiServer(): () => Promise<RealApiServer> {
  let started: Promise<RealApiServer> | undefined;
  let used = false;
  const stops: Array<() => unknown> = [];
  const dir = tempDir();
  afterAll(async () => {
    for (const f of stops.reverse()) await f();
    dir.remove();
  });
  return async () => {
    started ??= startRealApiServer(join(dir.path, 'kube'), { add: (f) => void stops.push(f) });
    const server = await started;
    if (used) await server.reset();
    used = true;
    return server;
  };
}
