// The names a poll is recorded under. A graph request may name any channel, arch and version; only
// those the served graph has are recorded as they are, and every other one as UNSERVED, so that the
// fleet's groups, alerts and webhooks are bounded by the graph's names, not by what callers invent.
// A cluster on a channel that is not served yet still counts (stranded: unknown-channel).
import { UNSERVED } from '../../schemas/fleet.js';

/** What a graph answer was made from, as far as naming its poll goes (a GraphSnapshot is one). */
export interface ServedNames {
  readonly channels: ReadonlySet<string>;
  readonly arches: ReadonlySet<string>;
  hasRelease(version: string): boolean;
}

/** A version as a poll may name it: a semantic version's characters, bounded. */
export const POLLED_VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

/**
 * The channel, arch and version a poll is recorded under. A version that is not one a poll may name
 * is left as it is, for the recorder to count the poll as malformed.
 */
export function polledNames(
  served: ServedNames,
  channel: string,
  arch: string,
  version: unknown,
): { channel: string; arch: string; version: unknown } {
  return {
    channel: served.channels.has(channel) ? channel : UNSERVED,
    arch: served.arches.has(arch) ? arch : UNSERVED,
    version:
      typeof version === 'string' && POLLED_VERSION.test(version) && !served.hasRelease(version) ? UNSERVED : version,
  };
}
