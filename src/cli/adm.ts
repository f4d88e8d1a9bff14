// `cincy adm upgrade`: the update report of a cluster, worded like `oc adm upgrade`, and the channel switch.
import * as k8s from '@kubernetes/client-node';
import { Command } from 'commander';
import type { Release } from '../agent/cincinnati.js';
import type { Condition } from '../agent/status.js';
import { loadKubeConfig } from './agent.js';

const CV = { group: 'config.openshift.io', version: 'v1', plural: 'clusterversions', name: 'version' };

interface ClusterVersionView {
  spec: { channel?: string; upstream?: string };
  status: {
    desired?: { version?: string; channels?: string[] };
    availableUpdates?: Release[] | null;
    conditionalUpdates?: Array<{ release: Release; conditions: Condition[] }>;
    conditions?: Condition[];
  };
}

export function upgradeReport(cv: ClusterVersionView, includeNotRecommended: boolean): string {
  const out: string[] = [];
  out.push(`Cluster version is ${cv.status.desired?.version ?? '<unknown>'}`, '');
  out.push(cv.spec.upstream ? `Upstream: ${cv.spec.upstream}` : 'Upstream is unset, so the cluster will use an appropriate default.');
  const channels = cv.status.desired?.channels ?? [];
  out.push(cv.spec.channel ? `Channel: ${cv.spec.channel}${channels.length ? ` (available channels: ${channels.join(', ')})` : ''}` : 'Channel: <none>');
  const retrieved = cv.status.conditions?.find((c) => c.type === 'RetrievedUpdates');
  if (retrieved && retrieved.status !== 'True') {
    // As oc does: a warning on standard error, the report on standard output.
    process.stderr.write(`warning: Cannot display available updates:\n  Reason: ${retrieved.reason}\n  Message: ${retrieved.message.replace(/\n/g, '\n  ')}\n\n`);
  }
  const available = cv.status.availableUpdates ?? [];
  const notRecommended = (cv.status.conditionalUpdates ?? []).filter((c) => !c.conditions.some((k) => k.type === 'Recommended' && k.status === 'True'));
  if (available.length) {
    const width = Math.max(7, ...available.map((r) => r.version.length)) + 5;
    out.push('', 'Recommended updates:', '', `  ${'VERSION'.padEnd(width)}IMAGE`, ...available.map((r) => `  ${r.version.padEnd(width)}${r.image}`));
  } else if (!retrieved || retrieved.status === 'True') {
    out.push('', 'No updates available. You may still upgrade to a specific release image with --to-image or wait for new updates to be available.');
  }
  if (notRecommended.length && includeNotRecommended) {
    out.push('', 'Supported but not recommended updates:');
    for (const c of notRecommended) {
      const rec = c.conditions.find((k) => k.type === 'Recommended');
      out.push('', `  Version: ${c.release.version}`, `  Image: ${c.release.image}`, `  Recommended: ${rec?.status ?? 'Unknown'}`, `  Reason: ${rec?.reason ?? ''}`, `  Message: ${(rec?.message ?? '').replace(/\n/g, '\n  ')}`);
    }
  } else if (notRecommended.length) {
    out.push('', 'Additional updates which are not recommended based on your cluster configuration are available, to view those re-run the command with --include-not-recommended.');
  }
  return `${out.join('\n')}\n`;
}

export function addAdmCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const upgrade = program
    .command('adm')
    .description('cluster administration, like oc adm')
    .command('upgrade')
    .description('show the updates of a cluster, as oc adm upgrade does')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG or ~/.kube/config)')
    .option('--include-not-recommended', 'also show the updates that are not recommended, with why')
    .option('-o, --output <format>', 'text or json', 'text')
    .action((opts: { kubeconfig?: string; includeNotRecommended?: boolean; output: string }) =>
      run(async () => {
        const cv = (await loadKubeConfig(opts).makeApiClient(k8s.CustomObjectsApi).getClusterCustomObject(CV)) as ClusterVersionView;
        process.stdout.write(opts.output === 'json' ? `${JSON.stringify({ spec: cv.spec, status: cv.status }, null, 2)}\n` : upgradeReport(cv, !!opts.includeNotRecommended));
        return 0;
      })(),
    );
  upgrade
    .command('channel')
    .description('set the update channel of the cluster')
    .argument('<name>', 'channel, e.g. stable-4.16')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster')
    .action((name: string, opts: { kubeconfig?: string }, cmd: Command) =>
      run(async () => {
        const kubeconfig = opts.kubeconfig ?? (cmd.parent?.opts() as { kubeconfig?: string }).kubeconfig; // also before `channel`
        if (!/^[0-9a-z\-.]+$/.test(name)) throw new Error(`channel '${name}' does not match ^[0-9a-z\\-\\.]+$`);
        await loadKubeConfig({ kubeconfig }).makeApiClient(k8s.CustomObjectsApi).patchClusterCustomObject({ ...CV, body: { spec: { channel: name } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
        process.stdout.write(`Updated the channel to "${name}"\n`);
        return 0;
      })(),
    );
}
