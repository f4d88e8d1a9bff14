// kubectl, the real client, run against a mock cluster's kubeconfig.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const KUBECTL = '/usr/bin/kubectl';

/** True when the binary is here; under CI=true its absence fails, never skips. */
export function kubectlAvailable(): boolean {
  if (existsSync(KUBECTL)) return true;
  if (process.env.CI === 'true')
    throw new Error(
      `${KUBECTL} is missing (CI=true: nothing may skip; .ci/run installs the kubernetes-client package)`,
    );
  console.warn(
    `\n*** SKIPPING tests that need kubectl: ${KUBECTL} not found (apt-get install kubernetes-client) ***\n`,
  );
  return false;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs kubectl with `kubeconfig`; `input` goes to its standard input (for `-f -`). Its discovery and OpenAPI
 * cache sits beside the kubeconfig, so a cluster never sees what another one on the same port served.
 * `env` adds to the environment (EDITOR for `kubectl edit`).
 */
export function kubectl(
  kubeconfig: string,
  args: string[],
  input?: string,
  env: Record<string, string> = {},
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      KUBECTL,
      ['--kubeconfig', kubeconfig, '--cache-dir', join(dirname(kubeconfig), 'kube-cache'), ...args],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin!.end(input ?? '');
  });
}
