// What `cincy adm upgrade --to/--to-image/--to-latest/--to-multi-arch` asks of the cluster, decided as
// `oc adm upgrade` decides it (pkg/cli/admin/upgrade/upgrade.go), with its messages: the target from the
// recommended updates, a conditional one only with --allow-not-recommended, an image outside both only
// with --allow-explicit-upgrade; the client-side guards (an invalid, failing or updating cluster) passed
// only with --allow-upgrade-with-warnings. The accepted risks (spec.desiredUpdate.acceptRisks) are kept as
// they are: `adm upgrade accept` changes them.
import semver from 'semver';
import type { ClusterRelease, DesiredUpdate } from '../../agent/clusterVersion.js';
import type { Condition } from '../../agent/conditions.js';
import type { ClusterClient } from '../kubeconfig.js';
import { patchClusterVersion, readClusterVersion } from './cluster.js';
import { bySemverDesc, conditionOf, indent, type ClusterVersionView } from './report.js';

export interface UpgradeRequest {
  to?: string;
  toImage?: string;
  toLatest?: boolean;
  toMultiArch?: boolean;
  allowNotRecommended?: boolean;
  allowExplicitUpgrade?: boolean;
  allowUpgradeWithWarnings?: boolean;
  force?: boolean;
}

/** What the command does: print `info` and change nothing, or ask for `update` and print `requested`. */
export type UpgradePlan =
  | { kind: 'info'; info: string; warnings: string[] }
  | { kind: 'request'; update: DesiredUpdate; requested: string; warnings: string[] };

const FORCE_WARNING =
  'warning: --force overrides cluster verification of your supplied release image and waives any update precondition failures. Only use this if you are testing unsigned release images or you are working around a known bug in the cluster-version operator and you have verified the authenticity of the provided image yourself.';

/** The checks oc makes of the flags before it asks the cluster anything. */
export function checkFlags(r: UpgradeRequest & { clear?: boolean }, warnings: string[] = []): void {
  if (r.clear && (r.toImage || r.to || r.toLatest || r.toMultiArch))
    throw new Error('--clear may not be specified with any other flags');
  if (r.toMultiArch && (r.to || r.toImage || r.toLatest))
    throw new Error('--to-multi-arch may not be used with --to, --to-image, or --to-latest');
  if (r.to && r.toImage) throw new Error('only one of --to or --to-image may be provided');
  if (r.to && !semver.valid(r.to))
    throw new Error(
      `--to must be a semantic version (e.g. 4.0.1 or 4.1.0-nightly-20181104): ${JSON.stringify(r.to)} is not one`,
    );
  if (r.toImage) {
    const ref = imageReference(r.toImage);
    if (typeof ref === 'string') throw new Error(`--to-image must be a valid image pull spec: ${ref}`);
    if (ref.tag && !ref.digest) {
      if (!r.force)
        throw new Error(
          '--to-image must be a by-digest pull spec, unless --force is also set, because release images that are not accessed via digest cannot be verified by the cluster.  Even when --force is set, using tags is not recommended, although we continue to allow it for backwards compatibility',
        );
      warnings.push(
        'warning: Using by-tag pull specs is dangerous, and while we still allow it in combination with --force for backward compatibility, it would be much safer to pass a by-digest pull spec instead',
      );
    }
  }
}

/** An image pull spec's parts, or what is wrong with it. */
function imageReference(spec: string): { name: string; tag?: string; digest?: string } | string {
  const at = spec.indexOf('@');
  const name = at < 0 ? spec : spec.slice(0, at);
  const digest = at < 0 ? undefined : spec.slice(at + 1);
  if (digest !== undefined && !/^sha256:[0-9a-f]{64}$/.test(digest)) return 'invalid digest';
  const slash = name.lastIndexOf('/');
  const colon = name.indexOf(':', slash + 1);
  const repository = colon < 0 ? name : name.slice(0, colon);
  const tag = colon < 0 ? undefined : name.slice(colon + 1);
  if (!/^[a-z0-9]+(?:[._:/-][a-z0-9]+)*$/i.test(repository) || (tag !== undefined && !/^\w[\w.-]{0,127}$/.test(tag)))
    return 'invalid reference format';
  if (slash < 0) return 'no registry or repository specified';
  if (!tag && !digest) return 'no tag or digest specified';
  return { name: repository, tag, digest };
}

const digestOf = (image: string): string | undefined => /@(sha256:[0-9a-f]{64})$/.exec(image)?.[1];

/** Whether a release is the one asked for: the version, or the image (the same digest counts). */
function targetMatch(release: ClusterRelease, to: string | undefined, toImage: string | undefined): boolean {
  if (to && release.version === to) return true;
  if (!toImage) return false;
  if (release.image === toImage) return true;
  const digest = digestOf(toImage);
  return !!digest && digestOf(release.image) === digest;
}

/** oc's client-side guards: an invalid, failing or updating cluster. */
function guardFailures(cv: ClusterVersionView): string | undefined {
  const found: string[] = [];
  const block = (c: Condition): string => `\n\n  Reason: ${c.reason}\n  Message: ${indent(c.message)}`;
  const invalid = conditionOf(cv, 'Invalid');
  if (invalid?.status === 'True')
    found.push(`the cluster version object is invalid, you must correct the invalid state first:${block(invalid)}`);
  const failing = conditionOf(cv, 'Failing');
  if (failing?.status === 'True') {
    const target =
      cv.status.desired?.version ||
      cv.status.desired?.image ||
      'ClusterVersion status.desired has neither a version nor image; please open a bug';
    found.push(`the cluster is experiencing an error reconciling "${target}":${block(failing)}`);
  }
  const progressing = conditionOf(cv, 'Progressing');
  if (progressing?.status === 'True') found.push(`the cluster is already upgrading:${block(progressing)}`);
  return found.length ? found.join('\n\n') : undefined;
}

const bypassed = (version: string, c: Condition): string =>
  `warning: with --allow-not-recommended you have accepted the risks with ${version} and bypassed ${c.type}=${c.status} ${c.reason}: ${c.message}`;

/** What `adm upgrade` with --to, --to-image, --to-latest or --to-multi-arch asks of this cluster. */
export function planUpdate(cv: ClusterVersionView, r: UpgradeRequest): UpgradePlan {
  const warnings: string[] = [];
  checkFlags(r, warnings);
  const accepted = cv.spec.desiredUpdate?.acceptRisks;
  const desired = cv.status.desired;
  const guards = (): void => {
    const failures = guardFailures(cv);
    if (!failures) return;
    if (!r.allowUpgradeWithWarnings)
      throw new Error(`${failures}\n\nIf you want to upgrade anyway, use --allow-upgrade-with-warnings.`);
    warnings.push(`warning: --allow-upgrade-with-warnings is bypassing: ${failures}`);
  };

  if (r.toMultiArch) {
    if (cv.spec.desiredUpdate?.architecture === 'Multi')
      throw new Error('info: Update to multi cluster architecture has already been requested');
    guards();
    const update: DesiredUpdate = { architecture: 'Multi', version: desired?.version ?? '' };
    if (r.force) {
      update.force = true;
      warnings.push(FORCE_WARNING);
    }
    if (accepted) update.acceptRisks = accepted;
    return { kind: 'request', update, requested: 'Requested update to multi cluster architecture', warnings };
  }
  if (!r.to && !r.toImage && !r.toLatest) throw new Error('give one of --to, --to-image, --to-latest');
  if (r.to && r.to === desired?.version)
    return { kind: 'info', info: `info: Cluster is already at version ${r.to}`, warnings };
  if (r.toImage && r.toImage === desired?.image)
    return { kind: 'info', info: `info: Cluster is already at ${r.toImage}`, warnings };

  let update: DesiredUpdate | undefined;
  const possible: ClusterRelease[] = [];
  const notRecommended = new Map<string, { condition: Condition; risks: string[] }>();
  for (const u of cv.status.availableUpdates ?? []) {
    if (targetMatch(u, r.to, r.toImage)) {
      update = { version: u.version, image: r.toImage || u.image };
      break;
    }
    possible.push(u);
  }
  if (!update) {
    for (const c of cv.status.conditionalUpdates ?? []) {
      const rec = c.conditions.find((k) => k.type === 'Recommended');
      if (!rec || rec.status === 'True') continue;
      if (targetMatch(c.release, r.to, r.toImage)) {
        if (!r.allowNotRecommended)
          throw new Error(
            `the update ${c.release.version} is not one of the recommended updates, but is available as a conditional update. To accept the ${rec.type}=${rec.status} risk and to proceed with update use --allow-not-recommended.\n  Reason: ${rec.reason}\n  Message: ${indent(rec.message)}`,
          );
        update = { version: c.release.version, image: c.release.image };
        warnings.push(bypassed(c.release.version, rec));
        break;
      }
      if (r.allowNotRecommended) {
        possible.push(c.release);
        notRecommended.set(c.release.image, { condition: rec, risks: c.risks.map((k) => k.name) });
      }
    }
  }
  if (!update && r.toImage && r.allowExplicitUpgrade) {
    update = { image: r.toImage };
    warnings.push(
      'warning: The requested upgrade image is not one of the available updates. You have used --allow-explicit-upgrade for the update to proceed anyway',
    );
  }
  possible.sort((a, b) => bySemverDesc(a.version, b.version));
  if (r.toLatest && possible.length) {
    const latest = possible[0]!;
    update = { version: latest.version, image: latest.image };
    const risky = notRecommended.get(latest.image);
    if (risky) {
      warnings.push(bypassed(latest.version, risky.condition));
    }
  }
  if (!update) {
    const retrieved = conditionOf(cv, 'RetrievedUpdates');
    const option = r.toImage ? '--allow-explicit-upgrade' : '--to-image';
    const nextStep = `${option} to continue with ${r.toLatest ? 'an' : 'the'} update`;
    if (retrieved && retrieved.status !== 'True')
      throw new Error(
        `cannot refresh available updates:\n  Reason: ${retrieved.reason}\n  Message: ${indent(retrieved.message)}\n\nspecify ${nextStep}.`,
      );
    if (!possible.length && r.allowNotRecommended)
      throw new Error(
        `no recommended or conditional updates, specify ${nextStep} or wait for new updates to be available.`,
      );
    if (!possible.length && r.toLatest)
      return {
        kind: 'info',
        info: `info: Cluster is already at the latest available version ${desired?.version ?? ''}`,
        warnings,
      };
    if (!possible.length)
      throw new Error(`no recommended updates, specify ${nextStep} or wait for new updates to be available.`);
    throw new Error(
      `the update is not one of the possible targets: ${possible.map((u) => u.version).join(', ')}. specify ${nextStep}.`,
    );
  }
  if (r.force) {
    update.force = true;
    warnings.push(FORCE_WARNING);
  }
  guards();
  // The risks accepted so far stay (`adm upgrade accept` manages them); --allow-not-recommended adds none.
  if (accepted?.length) update.acceptRisks = accepted;
  const requested = update.version
    ? `Requested update to ${update.version}`
    : `Requested update to release image ${update.image}`;
  return { kind: 'request', update, requested, warnings };
}

/**
 * Reads the cluster, decides as `planUpdate` does and, when there is something to ask, asks it; `warn` is
 * told the plan's warnings first, as oc prints them before it changes anything.
 */
export async function requestUpdate(
  cluster: ClusterClient,
  r: UpgradeRequest,
  warn: (line: string) => void = () => {},
): Promise<UpgradePlan> {
  const plan = planUpdate(await readClusterVersion(cluster), r);
  plan.warnings.forEach(warn);
  if (plan.kind === 'request') {
    // Every key given (null for the absent ones), so nothing of an earlier request lingers in the merge.
    const none = { version: null, image: null, architecture: null, force: null, acceptRisks: null };
    await patchClusterVersion(cluster, { spec: { desiredUpdate: { ...none, ...plan.update } } });
  }
  return plan;
}
