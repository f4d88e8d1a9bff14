// Starts `cincy mock-cluster` as a process and connects the standard Kubernetes client to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'cincy.js');

/** The ClusterVersion, as client-node's CustomObjectsApi names it. */
export const CV = { group: 'config.openshift.io', version: 'v1', plural: 'clusterversions', name: 'version' };

export interface Mock {
  url: string;
  kubeconfig: string;
  kc: k8s.KubeConfig;
  child: ChildProcess;
  /** What the process has printed so far (standard output and error). */
  output(): string;
  stop(): Promise<void>;
  /** Ends it as SIGKILL does, and waits until it has exited. */
  kill(): Promise<void>;
}

/** `cincy mock-cluster ARGS` as a process, with `env` added to its environment (NODE_OPTIONS, TMPDIR…). */
export function serveMock(
  args: string[],
  dir: string,
  cleanup: { add(f: () => unknown): void },
  env?: Record<string, string>,
): Promise<Mock> {
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(process.execPath, [BIN, 'mock-cluster', '--port', '0', '--kubeconfig-out', kubeconfig, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env && { env: { ...process.env, ...env } }),
  });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(); // exited, or killed
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  cleanup.add(stop);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /listening at (https?:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        const kc = new k8s.KubeConfig();
        kc.loadFromFile(kubeconfig);
        const kill = (): Promise<void> =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGKILL');
          });
        resolve({ url: m[1]!, kubeconfig, kc, child, output: () => out, stop, kill });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`mock-cluster exited ${code}: ${out}`)));
  });
}
