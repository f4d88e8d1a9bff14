// `cincy adm upgrade` and its subcommands, as `oc adm upgrade` has them: the update report, a request
// (--to, --to-image, --to-latest, --to-multi-arch) or its cancellation (--clear), the channel, the status
// of an update under way, and the recommendations with their checks. Each lives in src/cli/adm/.
import type { Command } from 'commander';
import { loadKubeConfig } from './kubeconfig.js';
import { escapeLines } from './terminalText.js';
import { setChannel } from './adm/channel.js';
import { clearUpdate } from './adm/clear.js';
import { readClusterVersion } from './adm/cluster.js';
import { upgradeReport } from './adm/report.js';
import { checkFlags, requestUpdate, type UpgradeRequest } from './adm/request.js';
import { DETAILS, upgradeStatus } from './adm/status.js';
import { checkRecommendOptions, recommendReport, type Precheck, type RecommendOptions } from './adm/recommend.js';
import { alertFindings } from './adm/recommend/alerts.js';

type UpgradeOptions = UpgradeRequest & {
  kubeconfig?: string;
  includeNotRecommended?: boolean;
  clear?: boolean;
  output: string;
};

/** A line of what a server or the cluster said, on standard error. */
const warn = (line: string): void => void process.stderr.write(escapeLines(`${line}\n`));
const say = (line: string): void => void process.stdout.write(escapeLines(`${line}\n`));

/** --kubeconfig given to the subcommand, or to `adm upgrade` before it. */
const kubeconfigOf = (opts: { kubeconfig?: string }, cmd: Command): string | undefined =>
  opts.kubeconfig ?? (cmd.parent?.opts() as { kubeconfig?: string }).kubeconfig;

async function upgrade(opts: UpgradeOptions): Promise<number> {
  if (!['text', 'json'].includes(opts.output)) throw new Error(`--output: '${opts.output}' is not text or json`);
  checkFlags(opts); // before the cluster is asked anything, as oc checks them
  const kc = loadKubeConfig(opts);
  if (opts.clear) {
    say(await clearUpdate(kc));
    return 0;
  }
  if (opts.to || opts.toImage || opts.toLatest || opts.toMultiArch) {
    const plan = await requestUpdate(kc, opts, warn);
    say(plan.kind === 'info' ? plan.info : plan.requested);
    return 0;
  }
  const cv = await readClusterVersion(kc);
  if (opts.output === 'json') {
    process.stdout.write(`${JSON.stringify({ spec: cv.spec, status: cv.status }, null, 2)}\n`);
    return 0;
  }
  const report = upgradeReport(cv, !!opts.includeNotRecommended);
  process.stdout.write(escapeLines(report.out));
  process.stderr.write(escapeLines(report.err));
  return 0;
}

type RecommendFlags = RecommendOptions & {
  kubeconfig?: string;
  prometheusUrl?: string;
  prometheusTokenFile?: string;
  prometheusCaFile?: string;
};

const commaList = (v: string): string[] =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

async function recommend(opts: RecommendFlags, kubeconfig: string | undefined): Promise<number> {
  checkRecommendOptions(opts);
  const kc = loadKubeConfig({ kubeconfig });
  const cv = await readClusterVersion(kc);
  let precheck: Precheck | undefined;
  if (opts.prometheusUrl) {
    const access = { url: opts.prometheusUrl, tokenFile: opts.prometheusTokenFile, caFile: opts.prometheusCaFile };
    precheck = await alertFindings(access).then(
      (findings) => ({ findings }),
      (err: Error) => ({ findings: [], error: err.message }),
    );
  }
  const report = recommendReport(cv, opts, precheck);
  process.stdout.write(escapeLines(report.out));
  process.stderr.write(escapeLines(report.err));
  if (report.failure) throw new Error(report.failure);
  return 0;
}

export function addAdmCommands(program: Command, run: (f: () => Promise<number>) => () => Promise<void>): void {
  const upgradeCmd = program
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
    .action((opts: UpgradeOptions) => run(() => upgrade(opts))());
  upgradeCmd
    .command('status')
    .description('the progress of an update: control plane, operators, node pools and health, as oc shows it')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster')
    .option('--details <what>', `show more: ${DETAILS.join(', ')}`, 'none')
    .action((opts: { kubeconfig?: string; details: string }, cmd: Command) =>
      run(async () => {
        const kc = loadKubeConfig({ kubeconfig: kubeconfigOf(opts, cmd) });
        process.stdout.write(escapeLines(await upgradeStatus(kc, opts.details)));
        return 0;
      })(),
    );
  upgradeCmd
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
    .action((opts: RecommendFlags, cmd: Command) => run(() => recommend(opts, kubeconfigOf(opts, cmd)))());
  upgradeCmd
    .command('channel')
    .description('set or clear the update channel; prints nothing on success, as oc does')
    .argument('[name]', "channel, e.g. stable-4.16; '' or none to clear it")
    .option('--kubeconfig <file>', 'kubeconfig of the cluster')
    .option('--allow-explicit-channel', 'set a channel the current release is not listed in, or clear a listed one')
    .action((name: string | undefined, opts: { kubeconfig?: string; allowExplicitChannel?: boolean }, cmd: Command) =>
      run(async () => {
        const channel = name ?? '';
        if (channel && !/^[0-9a-z\-.]+$/.test(channel))
          throw new Error(`channel '${channel}' does not match ^[0-9a-z\\-\\.]+$`);
        const info = await setChannel(loadKubeConfig({ kubeconfig: kubeconfigOf(opts, cmd) }), channel, opts, warn);
        if (info) say(info);
        return 0;
      })(),
    );
}
