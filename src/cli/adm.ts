// `cincy adm upgrade`: the update report of a cluster, worded like `oc adm upgrade`, and the channel switch.
import * as k8s from '@kubernetes/client-node';
import { Command } from 'commander';
import type { DesiredUpdate } from '../agent/clusterVersion.js';
import { PAYLOAD_PATTERN } from '../schemas/graphData.js';
import { loadKubeConfig } from './kubeconfig.js';
import { escapeLines } from './terminalText.js';
import { patchClusterVersion, readClusterVersion } from './adm/cluster.js';
import { indent, upgradeReport, type ClusterVersionView } from './adm/report.js';

export interface UpgradeRequest {
  to?: string;
  toImage?: string;
  allowNotRecommended?: boolean;
  allowExplicitUpgrade?: boolean;
  allowUpgradeWithWarnings?: boolean;
  force?: boolean;
}

/**
 * What `adm upgrade --to/--to-image` asks of the cluster, checked the way oc checks it: a version must
 * be a recommended update, or a conditional one with --allow-not-recommended (its risks are then
 * accepted in spec.desiredUpdate.acceptRisks); an image outside the recommendations needs
 * --allow-explicit-upgrade; an update under way needs --allow-upgrade-with-warnings.
 */
export function desiredUpdateFor(cv: ClusterVersionView, r: UpgradeRequest): DesiredUpdate {
  if (!!r.to === !!r.toImage) throw new Error('give exactly one of --to VERSION and --to-image IMAGE');
  const progressing = cv.status.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.status === 'True' && !r.allowUpgradeWithWarnings)
    throw new Error(`Already upgrading (${progressing.message}); pass --allow-upgrade-with-warnings to override.`);
  const available = cv.status.availableUpdates ?? [];
  const conditional = cv.status.conditionalUpdates ?? [];
  const accepted = cv.spec.desiredUpdate?.acceptRisks ?? [];
  const flag = r.toImage ? '--to-image' : '--to';
  if (r.toImage && !new RegExp(PAYLOAD_PATTERN).test(r.toImage) && !r.force)
    throw new Error(
      `--to-image: '${r.toImage}' is not pinned by digest (…@sha256:<64 hex>); a tag cannot be verified, so it needs --force`,
    );
  if (r.to && r.to === cv.status.desired?.version) {
    const updating = cv.status.history?.[0]?.version === r.to && cv.status.history[0].state === 'Partial';
    throw new Error(
      updating ? `--to: the cluster is already updating to ${r.to}` : `--to: the cluster is already at ${r.to}`,
    );
  }
  const matches = (u: { version: string; image: string }): boolean =>
    r.toImage ? u.image === r.toImage : u.version === r.to;
  const recommended = available.find(matches);
  if (recommended)
    return { version: recommended.version, image: recommended.image, force: !!r.force, acceptRisks: accepted };
  const c = conditional.find((u) => matches(u.release));
  if (c) {
    const rec = c.conditions.find((k) => k.type === 'Recommended');
    if (!r.allowNotRecommended) {
      const what = `${flag}: the update ${c.release.version} is not one of the recommended updates, but is available as a conditional update.`;
      const how = `To accept the Recommended=${rec?.status ?? 'Unknown'} risk and to proceed with update use --allow-not-recommended.`;
      throw new Error(`${what} ${how}\n  Reason: ${rec?.reason ?? ''}\n  Message: ${indent(rec?.message ?? '')}`);
    }
    const names = new Set([...accepted.map((a) => a.name), ...c.risks.map((risk) => risk.name)]);
    return {
      version: c.release.version,
      image: c.release.image,
      force: !!r.force,
      acceptRisks: [...names].sort().map((name) => ({ name })),
    };
  }
  if (r.toImage) {
    if (!r.allowExplicitUpgrade)
      throw new Error(
        `--to-image: ${r.toImage} is not one of the available updates; pass --allow-explicit-upgrade to update to it anyway`,
      );
    return { image: r.toImage, force: !!r.force, acceptRisks: accepted };
  }
  const versions = available.map((u) => u.version).join(', ');
  throw new Error(
    `--to: the update ${r.to} is not one of the available updates${versions ? `: ${versions}` : ' (there are none)'}`,
  );
}

/** Asks the cluster for an update (spec.desiredUpdate), checked as `desiredUpdateFor` checks it; returns what was asked. */
export async function requestUpdate(kc: k8s.KubeConfig, r: UpgradeRequest): Promise<DesiredUpdate> {
  const cv = await readClusterVersion(kc);
  const desiredUpdate = desiredUpdateFor(cv, r);
  // Every key given (null for the absent ones), so nothing of an earlier request lingers in the merge.
  await patchClusterVersion(kc, {
    spec: { desiredUpdate: { version: null, image: null, architecture: null, ...desiredUpdate } },
  });
  return desiredUpdate;
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
      run(async () => {
        if (!['text', 'json'].includes(opts.output)) throw new Error(`--output: '${opts.output}' is not text or json`);
        const kc = loadKubeConfig(opts);
        if (opts.to || opts.toImage) {
          const desiredUpdate = await requestUpdate(kc, opts);
          if (opts.force)
            process.stderr.write(
              'warning: --force overrides cluster verification of your supplied release image and waives any update precondition failures.\n',
            );
          process.stdout.write(escapeLines(`Requested update to ${desiredUpdate.version ?? desiredUpdate.image}\n`));
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
        await patchClusterVersion(loadKubeConfig({ kubeconfig }), { spec: { channel: name } });
        process.stdout.write(`Updated the channel to "${name}"\n`);
        return 0;
      })(),
    );
}
