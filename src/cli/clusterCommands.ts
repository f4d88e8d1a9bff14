// The commands that talk to a cluster's Kubernetes API like oc does (adm upgrade and its subcommands,
// get): their options here, their work in adm.ts and get.ts, which load the Kubernetes client only
// when one of them runs.
import type { Command } from 'commander';
import type { RecommendFlags, UpgradeOptions } from './adm.js';
import { DETAILS } from './adm/details.js';

/** --kubeconfig given to the subcommand, or to `adm upgrade` before it. */
const kubeconfigOf = (opts: { kubeconfig?: string }, cmd: Command): string | undefined =>
  opts.kubeconfig ?? (cmd.parent?.opts() as { kubeconfig?: string }).kubeconfig;

const commaList = (v: string): string[] =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export function addClusterCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const adm = async () => import('./adm.js');
  const upgrade = program
    .command('adm')
    .description('cluster administration, like oc adm')
    .command('upgrade')
    .description('show the updates of a cluster, or update it, as oc adm upgrade does')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG or ~/.kube/config)')
    .option('--include-not-recommended', 'also show the updates that are not recommended, with why')
    .option('-o, --output <format>', 'text or json', 'text')
    .option('--to <version>', 'update to this version; it must be on the list of available updates')
    .option('--to-image <pullspec>', 'update to this release image, pinned by digest')
    .option('--to-latest', 'update to the latest (highest semantic version) available update')
    .option('--to-multi-arch', 'update the current version to its multi-architecture release')
    .option('--clear', 'cancel a requested update the cluster has not started on')
    .option('--allow-not-recommended', 'allow an update that is supported but not recommended (accepts its risks)')
    .option('--allow-explicit-upgrade', 'allow --to-image outside the available updates')
    .option(
      '--allow-upgrade-with-warnings',
      'update despite client-side guards: an update in progress, a failing or invalid cluster',
    )
    .option('--force', 'update despite cluster-side guards: signature verification, upgradeable conditions')
    .action((opts: UpgradeOptions) => run(async () => (await adm()).admUpgrade(opts))());
  upgrade
    .command('status')
    .description('the progress of an update: control plane, operators, node pools and health, as oc shows it')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster')
    .option('--details <what>', `show more: ${DETAILS.join(', ')}`, 'none')
    .action((opts: { kubeconfig?: string; details: string }, cmd: Command) =>
      run(async () => (await adm()).admUpgradeStatus(kubeconfigOf(opts, cmd), opts.details))(),
    );
  upgrade
    .command('recommend')
    .description('the recommended updates by minor version with their known issues, and what the precheck finds')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster')
    .option(
      '--version <version>',
      'the context of this target; exit 1 when an issue applies that --accept does not name',
    )
    .option('--show-outdated-releases', 'all known targets, older releases too')
    .option('--accept <names>', 'comma-separated issues you find acceptable (with --version)', commaList)
    .option(
      '--prometheus-url <url>',
      "the cluster's Prometheus or Thanos querier, whose firing alerts the precheck reads",
    )
    .option('--prometheus-token-file <file>', 'bearer token for --prometheus-url')
    .option('--prometheus-ca-file <file>', 'CA bundle of --prometheus-url')
    .action((opts: RecommendFlags, cmd: Command) =>
      run(async () => (await adm()).admUpgradeRecommend(opts, kubeconfigOf(opts, cmd)))(),
    );
  upgrade
    .command('channel')
    .description('set or clear the update channel; prints nothing on success, as oc does')
    .argument('[name]', "channel, e.g. stable-4.16; '' or none to clear it")
    .option('--kubeconfig <file>', 'kubeconfig of the cluster')
    .option('--allow-explicit-channel', 'set a channel the current release is not listed in, or clear a listed one')
    .action((name: string | undefined, opts: { kubeconfig?: string; allowExplicitChannel?: boolean }, cmd: Command) =>
      run(async () => (await adm()).admUpgradeChannel(name, opts, kubeconfigOf(opts, cmd)))(),
    );
  upgrade
    .command('accept')
    .description(
      'accept risks of conditional updates (spec.desiredUpdate.acceptRisks), as oc adm upgrade accept: adds the names given, removes each -NAME; needs the ClusterUpdateAcceptRisks feature on the cluster',
    )
    .argument('[risks]', 'comma-separated risk names; -NAME stops accepting NAME')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster')
    .option('--replace', 'accept only the risks given, dropping those accepted before')
    .option('--clear', 'accept no risk')
    .action(
      (risks: string | undefined, opts: { kubeconfig?: string; replace?: boolean; clear?: boolean }, cmd: Command) =>
        run(async () => (await adm()).admUpgradeAccept(risks, opts, kubeconfigOf(opts, cmd)))(),
    );

  program
    .command('get')
    .description(
      'print cluster operators, nodes, machine config pools, the cluster version, the image-based upgrade or the maintenance state as oc get does',
    )
    .argument(
      '<kind>',
      'clusteroperators|co, nodes|no, machineconfigpools|mcp, clusterversion, imagebasedupgrades|ibu, maintenance',
    )
    .argument('[name]', 'only this object')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster (default: $KUBECONFIG or ~/.kube/config)')
    .option('-o, --output <format>', 'json, or wide (the table with the extra columns of oc get -o wide)')
    .action((kind: string, name: string | undefined, opts: { kubeconfig?: string; output?: string }) =>
      run(async () => (await import('./get.js')).getCommand(kind, name, opts))(),
    );
}
