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
   * Deletes every object the server did not hold when it had started, namespaces and the CRDs it started with
   * aside (a bare API server never finishes deleting a namespace: that is kube-controller-manager's work; the
   * next cluster adopts them). A CRD of the start replaced since must be put back by whoever replaced it.
   */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

type Held = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };
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
  const baseline = new Set((await held()).map(keyOf));
  const reset = async (): Promise<void> => {
    const made = (await held()).filter((x) => x.kind !== 'Namespace' && !baseline.has(keyOf(x)));
    if (!made.length) return;
    const items = made.map(({ apiVersion, kind, metadata: { name, namespace } }) => ({
      apiVersion,
      kind,
      metadata: { name, namespace },
    }));
    // Not waited for one by one (kubectl's wait took 35 s for 200 objects): what the simulated cluster makes
    // carries no finalizer, so each is gone once its DELETE is answered; the kinds of a deleted CRD go with it.
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
