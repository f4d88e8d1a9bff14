// `cincy adm upgrade` and its subcommands as an `oc` user runs them, against `cincy mock-cluster` as a
// process: the messages, layout and exit codes of oc, and each failure of the Kubernetes client as one line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { CV } from '../src/agent/clusterVersion.js';
import { cincyAsync, useCleanup } from './support/cli.js';
import { serveMock } from './support/mock.js';

const cleanup = useCleanup();

/** Runs each command (with its environment) at once; each must fail with exit 1 and its one line. */
async function expectLines(runs: Array<[string[], Record<string, string>, string]>): Promise<void> {
  const results = await Promise.all(runs.map(([args, env]) => cincyAsync(args, env)));
  results.forEach((r, i) => {
    expect(r.stderr, runs[i]![0].join(' ')).toBe(`cincy: ${runs[i]![2]}\n`);
    expect(r.code).toBe(1);
  });
}

describe('Kubernetes client errors, one line each', () => {
  it('names a missing kubeconfig, refused credentials, an unreachable server and a missing ClusterVersion', async () => {
    const dir = cleanup.dir();
    const m = await serveMock(['--version', '4.16.3', '--channel', 'stable-4.16'], dir, cleanup);
    const noConfig = { HOME: dir, KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' };
    const refused = join(dir, 'refused-kubeconfig');
    writeFileSync(refused, readFileSync(m.kubeconfig, 'utf8').replace(/token: .*/, 'token: not-the-token'));
    const down = join(dir, 'down-kubeconfig');
    writeFileSync(down, readFileSync(m.kubeconfig, 'utf8').replace(/server: .*/, 'server: https://127.0.0.1:1'));
    const unauthorized = `401 Unauthorized: the token in KUBECONFIG (${refused}) was refused by ${m.url}`;
    // Each run with the one line it must print, all at once.
    await expectLines([
      [['adm', 'upgrade'], noConfig, 'no kubeconfig: set --kubeconfig or KUBECONFIG'],
      [
        ['adm', 'upgrade'],
        { ...noConfig, KUBECONFIG: join(dir, 'gone') },
        `KUBECONFIG: cannot read ${join(dir, 'gone')}: no such file`,
      ],
      [
        ['adm', 'upgrade', '--kubeconfig', join(dir, 'gone')],
        {},
        `--kubeconfig: cannot read ${join(dir, 'gone')}: no such file`,
      ],
      [['adm', 'upgrade'], { KUBECONFIG: refused }, unauthorized],
      [['adm', 'upgrade', 'channel', 'fast-4.16'], { KUBECONFIG: refused }, unauthorized],
      [['get', 'co'], { KUBECONFIG: refused }, unauthorized],
      [
        ['agent', '--once', '--kubeconfig', refused],
        {},
        `401 Unauthorized: the token in ${refused} (--kubeconfig) was refused by ${m.url}`,
      ],
      [
        ['adm', 'upgrade', '--kubeconfig', down],
        {},
        'cannot reach the cluster at https://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1',
      ],
    ]);

    await m.kc.makeApiClient(k8s.CustomObjectsApi).deleteClusterCustomObject(CV);
    const missing = `ClusterVersion "version" not found on ${m.url}`;
    await expectLines([
      [['adm', 'upgrade', '--kubeconfig', m.kubeconfig], {}, missing],
      [['adm', 'upgrade', '--to', '4.16.4', '--kubeconfig', m.kubeconfig], {}, missing],
    ]);
  }, 120_000);
});
