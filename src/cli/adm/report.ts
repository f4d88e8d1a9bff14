// What `cincy adm upgrade` prints without --to: the update report of `oc adm upgrade`, section by section
// in oc's words (pkg/cli/admin/upgrade/upgrade.go): Failing, Progressing, Upgradeable=False,
// ReleaseAccepted, the upstream and channel, the recommended updates, and the updates that are supported
// but not recommended. Warnings go to standard error, as oc writes them.
import semver from 'semver';
import type { ClusterRelease, ClusterVersion } from '../../agent/clusterVersion.js';
import type { Condition } from '../../agent/conditions.js';
import { alignColumns } from '../table.js';

export type ClusterVersionView = Pick<ClusterVersion, 'spec' | 'status'>;

/** A multi-line message under `  Message: `, its later lines indented to match. */
export const indent = (text: string): string => text.replace(/\n/g, '\n  ');

export const conditionOf = (cv: ClusterVersionView, type: string): Condition | undefined =>
  cv.status.conditions?.find((c) => c.type === type);

/** A condition as oc shows one: `Type=Status` (with `colon` after it), its reason and message. */
export const conditionBlock = (c: Condition, colon = ''): string =>
  `${c.type}=${c.status}${colon}\n\n  Reason: ${c.reason}\n  Message: ${indent(c.message)}\n\n`;

/** Newest first by semantic version; what is not one goes last, by its text, as oc sorts. */
export function bySemverDesc(a: string, b: string): number {
  const [va, vb] = [semver.valid(a), semver.valid(b)];
  if (va && vb) return semver.rcompare(va, vb);
  if (va) return -1;
  if (vb) return 1;
  return a < b ? 1 : a > b ? -1 : 0;
}

export const notRecommended = (cv: ClusterVersionView): Array<{ release: ClusterRelease; recommended: Condition }> =>
  (cv.status.conditionalUpdates ?? [])
    .map((u) => ({ release: u.release, recommended: u.conditions.find((k) => k.type === 'Recommended') }))
    .filter(
      (u): u is { release: ClusterRelease; recommended: Condition } =>
        !!u.recommended && u.recommended.status !== 'True',
    )
    .sort((a, b) => bySemverDesc(a.release.version, b.release.version));

export function upgradeReport(cv: ClusterVersionView, includeNotRecommended: boolean): { out: string; err: string } {
  let out = '';
  let err = '';
  const noInfo = (type: string): string =>
    `warning: No current ${type} info, see \`oc describe clusterversion\` for more details.\n`;

  const failing = conditionOf(cv, 'Failing');
  if (!failing) err += noInfo('Failing');
  else if (failing.status !== 'False') out += conditionBlock(failing, ':');
  const progressing = conditionOf(cv, 'Progressing');
  if (progressing?.message)
    out +=
      progressing.status === 'True'
        ? `info: An upgrade is in progress. ${progressing.message}\n`
        : `${progressing.message}\n`;
  else err += noInfo('Progressing');
  out += '\n';
  const upgradeable = conditionOf(cv, 'Upgradeable');
  if (upgradeable?.status === 'False') out += conditionBlock(upgradeable);
  const accepted = conditionOf(cv, 'ReleaseAccepted');
  if (accepted && accepted.status !== 'True') out += conditionBlock(accepted);

  if (cv.spec.channel) {
    out += cv.spec.upstream
      ? `Upstream: ${cv.spec.upstream}\n`
      : 'Upstream is unset, so the cluster will use an appropriate default.\n';
    const channels = cv.status.desired?.channels ?? [];
    out += channels.length
      ? `Channel: ${cv.spec.channel} (available channels: ${channels.join(', ')})\n`
      : `Channel: ${cv.spec.channel}\n`;
  }

  const retrieved = conditionOf(cv, 'RetrievedUpdates');
  const notRetrieved = (what: string): string =>
    `warning: Cannot ${what} available updates:\n  Reason: ${retrieved!.reason}\n  Message: ${indent(retrieved!.message)}\n\n`;
  const available = [...(cv.status.availableUpdates ?? [])].sort((a, b) => bySemverDesc(a.version, b.version));
  if (available.length) {
    out += '\nRecommended updates:\n\n';
    out += alignColumns([['  VERSION', 'IMAGE'], ...available.map((u) => [`  ${u.version}`, u.image])], {
      minWidth: 14,
    });
    // The list stands from an earlier retrieval: it may be out of date.
    if (retrieved?.status === 'False') err += notRetrieved('refresh');
  } else if (retrieved?.status === 'False') {
    err += notRetrieved('display');
  } else {
    out +=
      'No updates available. You may still upgrade to a specific release image with --to-image or wait for new updates to be available.\n';
  }

  const others = notRecommended(cv);
  if (includeNotRecommended) {
    if (others.length) {
      out += '\nSupported but not recommended updates:\n';
      for (const { release, recommended } of others) {
        out += `\n  Version: ${release.version}\n  Image: ${release.image}\n`;
        out += `  Recommended: ${recommended.status}\n  Reason: ${recommended.reason}\n  Message: ${indent(recommended.message.trim())}\n`;
      }
    } else {
      out += '\nNo updates which are not recommended based on your cluster configuration are available.\n';
    }
  } else if (others.length) {
    out +=
      '\nAdditional updates which are not recommended based on your cluster configuration are available, to view those re-run the command with --include-not-recommended.\n';
  }
  return { out, err };
}
