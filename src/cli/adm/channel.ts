// `cincy adm upgrade channel [NAME]`, as `oc adm upgrade channel` (pkg/cli/admin/upgrade/channel): sets or
// clears spec.channel, checked against the channels the current release is in (status.desired.channels)
// unless --allow-explicit-channel; says when nothing changes, warns on standard error, and prints nothing
// on success.
import type { ClusterClient } from '../kubeconfig.js';
import { patchClusterVersion, readClusterVersion } from './cluster.js';

/**
 * Sets (or, given '', clears) the channel; `warn` is told each warning as oc prints it, before the change.
 * Returns the line to print when nothing changes.
 */
export async function setChannel(
  cluster: ClusterClient,
  channel: string,
  o: { allowExplicitChannel?: boolean },
  warn: (line: string) => void = () => {},
): Promise<string | undefined> {
  const cv = await readClusterVersion(cluster);
  const current = cv.spec.channel ?? '';
  if (channel === current)
    return current
      ? `info: Cluster is already in ${current} (no change)`
      : 'info: Cluster channel is already clear (no change)';
  const available = cv.status.desired?.channels ?? [];
  if (available.length) {
    const list = available.join(', ');
    if (!channel) {
      if (available.includes(current) && !o.allowExplicitChannel)
        throw new Error(
          `You are requesting to clear the update channel. The current channel "${current}" is one of the available channels, you must pass --allow-explicit-channel to continue`,
        );
    } else if (!available.includes(channel)) {
      if (!o.allowExplicitChannel)
        throw new Error(
          `the requested channel "${channel}" is not one of the available channels (${list}), you must pass --allow-explicit-channel to continue`,
        );
      warn(
        `warning: The requested channel "${channel}" is not one of the available channels (${list}). You have used --allow-explicit-channel to proceed anyway. Setting the update channel to "${channel}".`,
      );
    }
  } else if (channel) {
    warn(
      `warning: No channels known to be compatible with the current version "${cv.status.desired?.version ?? ''}"; unable to validate "${channel}". Setting the update channel to "${channel}" anyway.`,
    );
  }
  if (!channel)
    warn(`warning: Clearing channel "${current}"; cluster will no longer request available update recommendations.`);
  try {
    await patchClusterVersion(cluster, { spec: { channel: channel || null } });
  } catch (err) {
    throw new Error(`unable to set channel: ${(err as Error).message}`, { cause: err });
  }
  return undefined;
}
