// The commands that talk to a cluster's Kubernetes API like oc does (adm upgrade, adm upgrade channel,
// get): their options here, their work in adm.ts and get.ts, which load the Kubernetes client only
// when one of them runs.
import type { Command } from 'commander';
import type { UpgradeRequest } from './adm.js';

export function addClusterCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const upgrade = program
    .command('adm')
    .description('cluster administration, like oc adm')
    .command('upgrade')
    .description('show the updates of a cluster, as oc adm upgrade does')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG or ~/.kube/config)')
    .option('--include-not-recommended', 'also show the updates that are not recommended, with why')
    .option('-o, --output <format>', 'text or json', 'text')
    .option(
      '--to <version>',
      'update to this version (a recommended update, or a conditional one with --allow-not-recommended)',
    )
    .option('--to-image <pullspec>', 'update to this release image, pinned by digest')
    .option('--allow-not-recommended', 'allow a conditional update whose risks apply to this cluster (accepts them)')
    .option('--allow-explicit-upgrade', 'allow --to-image outside the available updates')
    .option('--allow-upgrade-with-warnings', 'request an update while another is in progress')
    .option('--force', 'proceed despite a failed signature verification or blocking preconditions')
    .action((opts: UpgradeRequest & { kubeconfig?: string; includeNotRecommended?: boolean; output: string }) =>
      run(async () => (await import('./adm.js')).admUpgrade(opts))(),
    );
  upgrade
    .command('channel')
    .description('set the update channel of the cluster')
    .argument('<name>', 'channel, e.g. stable-4.16')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster')
    .action((name: string, opts: { kubeconfig?: string }, cmd: Command) =>
      run(async () => {
        const kubeconfig = opts.kubeconfig ?? (cmd.parent?.opts() as { kubeconfig?: string }).kubeconfig; // also before `channel`
        return (await import('./adm.js')).admUpgradeChannel(name, kubeconfig);
      })(),
    );

  program
    .command('get')
    .description('print cluster operators, nodes, machine config pools or the cluster version as oc get does')
    .argument('<kind>', 'clusteroperators|co, nodes|no, machineconfigpools|mcp, clusterversion')
    .argument('[name]', 'only this object')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG or ~/.kube/config)')
    .option('-o, --output <format>', 'json (default: a table)')
    .action((kind: string, name: string | undefined, opts: { kubeconfig?: string; output?: string }) =>
      run(async () => (await import('./get.js')).getCommand(kind, name, opts))(),
    );
}
