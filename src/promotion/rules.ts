// The promotion rules of a channel's feeder: a version may enter a channel when it is a release, is
// not tombstoned there, and — when the channel has a feeder — is in the feeder's channel, matches the
// feeder's filter (anchored at the start), and has spent the feeder's delay there or, with
// `errata: public`, has an errata (a `url` in its metadata).
import { LABEL, type Channel, type Release } from '../graph/model.js';
import { compilePattern } from '../graph/pattern.js';
import { splitArch } from '../graph/version.js';
import type { Refusal } from '../schemas/admin.js';
import { parseIsoDuration } from '../duration.js';

export interface PromotionCase {
  version: string;
  target: Channel;
  /** The channel the target's feeder names, when it exists. */
  source: Channel | undefined;
  /** When the version entered the source channel. */
  sourceAddedAt: Date | undefined;
  /** Releases of this version (every arch, or the one a `+arch` suffix names). */
  releases: Release[];
  now: Date;
}

/** The first rule a promotion breaks, or undefined when it may go ahead. */
export function checkPromotion(c: PromotionCase): Refusal | undefined {
  const { version, target } = c;
  if (c.releases.length === 0) return { rule: 'release', message: `${version} is not a known release` };
  const bare = splitArch(version).version;
  if (target.tombstones.some((t) => t === version || t === bare)) {
    return {
      rule: 'tombstone',
      message: `${version} is in the tombstones of ${target.name}: promotion must not add it again`,
    };
  }
  const feeder = target.feeder;
  if (!feeder) return undefined;
  if (!c.source)
    return {
      rule: 'feeder.source',
      message: `the feeder of ${target.name} names channel '${feeder.name}', which does not exist`,
    };
  if (!c.sourceAddedAt)
    return { rule: 'feeder.source', message: `${version} is not in ${feeder.name}, the feeder of ${target.name}` };
  if (feeder.filter !== undefined && !compilePattern(feeder.filter).matchesStart(bare)) {
    return {
      rule: 'feeder.filter',
      message: `${bare} does not match the feeder filter '${feeder.filter}' of ${target.name}`,
    };
  }
  const delay = feeder.delay === undefined ? undefined : parseIsoDuration(feeder.delay);
  const errata = feeder.errata === 'public';
  if (delay === undefined && !errata) return undefined;
  const delayOver = delay !== undefined && c.now.getTime() >= c.sourceAddedAt.getTime() + delay;
  const hasErrata = errata && c.releases.some((r) => (r.metadata[LABEL.url] ?? '') !== '');
  if (delayOver || hasErrata) return undefined;
  if (delay !== undefined) {
    const ready = new Date(c.sourceAddedAt.getTime() + delay).toISOString();
    const alt = errata ? ' and it has no public errata (url metadata)' : '';
    return {
      rule: 'feeder.delay',
      message: `${version} entered ${feeder.name} at ${c.sourceAddedAt.toISOString()}; the feeder delay ${feeder.delay} of ${target.name} ends at ${ready}${alt}`,
    };
  }
  return {
    rule: 'feeder.errata',
    message: `${version} has no public errata (url metadata), which the feeder of ${target.name} requires`,
  };
}
