// `cincy adm upgrade` and its subcommands, as `oc adm upgrade` has them: the update report, a request
// (--to, --to-image, --to-latest, --to-multi-arch) or its cancellation (--clear), the channel, the status
// of an update under way, the recommendations with their checks, and the accepted risks. Each lives in src/cli/adm/; their
// options are in clusterCommands.ts, which loads this module only when one of them runs.
import { connectCluster } from './kubeconfig.js';
import { escapeLines } from './terminalText.js';
import { acceptRisks } from './adm/accept.js';
import { setChannel } from './adm/channel.js';
import { clearUpdate } from './adm/clear.js';
import { readClusterVersion } from './adm/cluster.js';
import { upgradeReport } from './adm/report.js';
import { checkFlags, requestUpdate, type UpgradeRequest } from './adm/request.js';
import { upgradeStatus } from './adm/status.js';
import { checkRecommendOptions, recommendReport, type Precheck, type RecommendOptions } from './adm/recommend.js';
import { alertFindings } from './adm/recommend/alerts.js';

export type UpgradeOptions = UpgradeRequest & {
  kubeconfig?: string;
  includeNotRecommended?: boolean;
  clear?: boolean;
  output: string;
};

export type RecommendFlags = RecommendOptions & {
  kubeconfig?: string;
  prometheusUrl?: string;
  prometheusTokenFile?: string;
  prometheusCaFile?: string;
};

/** A line of what a server or the cluster said, on standard error. */
const warn = (line: string): void => void process.stderr.write(escapeLines(`${line}\n`));
const say = (line: string): void => void process.stdout.write(escapeLines(`${line}\n`));

/** `cincy adm upgrade`: the report, or a request (--to, --to-image, --to-latest, --to-multi-arch), or --clear. */
export async function admUpgrade(opts: UpgradeOptions): Promise<number> {
  if (!['text', 'json'].includes(opts.output)) throw new Error(`--output: '${opts.output}' is not text or json`);
  checkFlags(opts); // before the cluster is asked anything, as oc checks them
  const cluster = connectCluster(opts);
  if (opts.clear) {
    say(await clearUpdate(cluster));
    return 0;
  }
  if (opts.to || opts.toImage || opts.toLatest || opts.toMultiArch) {
    const plan = await requestUpdate(cluster, opts, warn);
    say(plan.kind === 'info' ? plan.info : plan.requested);
    return 0;
  }
  const cv = await readClusterVersion(cluster);
  if (opts.output === 'json') {
    process.stdout.write(`${JSON.stringify({ spec: cv.spec, status: cv.status }, null, 2)}\n`);
    return 0;
  }
  const report = upgradeReport(cv, !!opts.includeNotRecommended);
  process.stdout.write(escapeLines(report.out));
  process.stderr.write(escapeLines(report.err));
  return 0;
}

/** `cincy adm upgrade status`: the progress of an update under way. */
export async function admUpgradeStatus(kubeconfig: string | undefined, details: string): Promise<number> {
  process.stdout.write(escapeLines(await upgradeStatus(connectCluster({ kubeconfig }), details)));
  return 0;
}

/** `cincy adm upgrade recommend`: the recommended updates and the precheck; exit 1 on an issue not accepted. */
export async function admUpgradeRecommend(opts: RecommendFlags, kubeconfig: string | undefined): Promise<number> {
  checkRecommendOptions(opts);
  const cluster = connectCluster({ kubeconfig });
  const cv = await readClusterVersion(cluster);
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

/** `cincy adm upgrade channel [name]`: sets or clears spec.channel; prints nothing on success, as oc does. */
export async function admUpgradeChannel(
  name: string | undefined,
  opts: { allowExplicitChannel?: boolean },
  kubeconfig: string | undefined,
): Promise<number> {
  const channel = name ?? '';
  if (channel && !/^[0-9a-z\-.]+$/.test(channel))
    throw new Error(`channel '${channel}' does not match ^[0-9a-z\\-\\.]+$`);
  const info = await setChannel(connectCluster({ kubeconfig }), channel, opts, warn);
  if (info) say(info);
  return 0;
}

/** `cincy adm upgrade accept [risks]`: changes the accepted risks; prints the list, as oc does. */
export async function admUpgradeAccept(
  risks: string | undefined,
  opts: { replace?: boolean; clear?: boolean },
  kubeconfig: string | undefined,
): Promise<number> {
  say(await acceptRisks(connectCluster({ kubeconfig }), risks === undefined ? [] : [risks], opts));
  return 0;
}
