// `cincy adm upgrade`: the update report of a cluster, worded like `oc adm upgrade`, and the channel switch.
import * as k8s from '@kubernetes/client-node';
import { CV, type ClusterVersion, type DesiredUpdate } from '../agent/clusterVersion.js';
import { PAYLOAD_PATTERN } from '../schemas/graphData.js';
import { loadKubeConfig } from './kubeconfig.js';
import { escapeLines } from './terminalText.js';

type ClusterVersionView = Pick<ClusterVersion, 'spec' | 'status'>;

const indent = (text: string): string => text.replace(/\n/g, '\n  ');

export function upgradeReport(cv: ClusterVersionView, includeNotRecommended: boolean): string {
  const out: string[] = [];
  const condition = (type: string) => cv.status.conditions?.find((c) => c.type === type);
  // As oc does: what blocks or breaks the update first, then where it is.
  for (const [type, status] of [
    ['Invalid', 'True'],
    ['Failing', 'True'],
  ] as const) {
    const c = condition(type);
    if (c?.status === status)
      out.push(`${type}=${status}:`, '', `  Reason: ${c.reason}`, `  Message: ${indent(c.message)}`, '');
  }
  const progressing = condition('Progressing');
  if (progressing?.status === 'True') out.push(`info: An upgrade is in progress. ${progressing.message}`, '');
  else out.push(`Cluster version is ${cv.status.desired?.version ?? '<unknown>'}`, '');
  const accepted = condition('ReleaseAccepted');
  if (accepted?.status === 'False')
    out.push('ReleaseAccepted=False', '', `  Reason: ${accepted.reason}`, `  Message: ${indent(accepted.message)}`, '');
  out.push(
    cv.spec.upstream
      ? `Upstream: ${cv.spec.upstream}`
      : 'Upstream is unset, so the cluster will use an appropriate default.',
  );
  const channels = cv.status.desired?.channels ?? [];
  out.push(
    cv.spec.channel
      ? `Channel: ${cv.spec.channel}${channels.length ? ` (available channels: ${channels.join(', ')})` : ''}`
      : 'Channel: <none>',
  );
  const retrieved = cv.status.conditions?.find((c) => c.type === 'RetrievedUpdates');
  if (retrieved && retrieved.status !== 'True') {
    // As oc does: a warning on standard error, the report on standard output.
    process.stderr.write(
      escapeLines(
        `warning: Cannot display available updates:\n  Reason: ${retrieved.reason}\n  Message: ${indent(retrieved.message)}\n\n`,
      ),
    );
  }
  const available = cv.status.availableUpdates ?? [];
  const notRecommended = (cv.status.conditionalUpdates ?? []).filter(
    (c) => !c.conditions.some((k) => k.type === 'Recommended' && k.status === 'True'),
  );
  if (available.length) {
    const width = Math.max(7, ...available.map((r) => r.version.length)) + 5;
    out.push(
      '',
      'Recommended updates:',
      '',
      `  ${'VERSION'.padEnd(width)}IMAGE`,
      ...available.map((r) => `  ${r.version.padEnd(width)}${r.image}`),
    );
  } else if (!retrieved || retrieved.status === 'True') {
    out.push(
      '',
      'No updates available. You may still upgrade to a specific release image with --to-image or wait for new updates to be available.',
    );
  }
  if (notRecommended.length && includeNotRecommended) {
    out.push('', 'Supported but not recommended updates:');
    for (const c of notRecommended) {
      const rec = c.conditions.find((k) => k.type === 'Recommended');
      out.push(
        '',
        `  Version: ${c.release.version}`,
        `  Image: ${c.release.image}`,
        `  Recommended: ${rec?.status ?? 'Unknown'}`,
        `  Reason: ${rec?.reason ?? ''}`,
        `  Message: ${indent(rec?.message ?? '')}`,
      );
    }
  } else if (notRecommended.length) {
    out.push(
      '',
      'Additional updates which are not recommended based on your cluster configuration are available, to view those re-run the command with --include-not-recommended.',
    );
  }
  return `${out.join('\n')}\n`;
}

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
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const cv = (await custom.getClusterCustomObject(CV)) as ClusterVersionView;
  const desiredUpdate = desiredUpdateFor(cv, r);
  // Every key given (null for the absent ones), so nothing of an earlier request lingers in the merge.
  const body = { spec: { desiredUpdate: { version: null, image: null, architecture: null, ...desiredUpdate } } };
  await custom.patchClusterCustomObject(
    { ...CV, body },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  return desiredUpdate;
}

/** `cincy adm upgrade`: the report, or with --to/--to-image the update request. */
export async function admUpgrade(
  opts: UpgradeRequest & { kubeconfig?: string; includeNotRecommended?: boolean; output: string },
): Promise<number> {
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
  const cv = (await kc.makeApiClient(k8s.CustomObjectsApi).getClusterCustomObject(CV)) as ClusterVersionView;
  process.stdout.write(
    opts.output === 'json'
      ? `${JSON.stringify({ spec: cv.spec, status: cv.status }, null, 2)}\n`
      : escapeLines(upgradeReport(cv, !!opts.includeNotRecommended)),
  );
  return 0;
}

/** `cincy adm upgrade channel <name>`: sets spec.channel of the ClusterVersion. */
export async function admUpgradeChannel(name: string, kubeconfig: string | undefined): Promise<number> {
  if (!/^[0-9a-z\-.]+$/.test(name)) throw new Error(`channel '${name}' does not match ^[0-9a-z\\-\\.]+$`);
  await loadKubeConfig({ kubeconfig })
    .makeApiClient(k8s.CustomObjectsApi)
    .patchClusterCustomObject(
      { ...CV, body: { spec: { channel: name } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  process.stdout.write(`Updated the channel to "${name}"\n`);
  return 0;
}
