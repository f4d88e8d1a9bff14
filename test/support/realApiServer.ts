// A real Kubernetes API server for a test (kube-apiserver and etcd with OpenShift's CRDs, from
// ../shared/kube/start-apiserver.sh, or CINCY_KUBE_DIR): started in a folder of its own on free ports, stopped
// by the cleanup. Where it cannot start (no etcd, no shared folder), a test skips loudly; under CI=true it fails.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

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
  stop(): Promise<void>;
}

/** Starts one in `dir`; the kubeconfig it prints is an admin's (system:masters), over TLS with its own CA. */
export function startRealApiServer(dir: string, cleanup: { add(f: () => unknown): void }): Promise<RealApiServer> {
  const stop = (): Promise<void> =>
    new Promise((resolve) => execFile(START, ['--stop', dir], { timeout: 30_000 }, () => resolve()));
  cleanup.add(stop);
  return new Promise((resolve, reject) =>
    execFile(START, [dir], { timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`start-apiserver.sh failed: ${stderr || err.message}`));
      resolve({ kubeconfig: stdout.trim().split('\n').pop()!, stop });
    }),
  );
}
