// The one promotion engine: what the promotion rules say of one version entering one channel, with the
// feeder facts they weighed. A promotion and its dry run (app/admin/feederRules.ts, from the store),
// auto-promotion, and explain's "when would promotion add it" (explain/edge.ts, from the served
// snapshot) all ask it; only where the facts come from differs.
import { LABEL, type Channel, type Release } from '../graph/model.js';
import { compilePattern, patternError } from '../graph/pattern.js';
import { splitArch } from '../graph/version.js';
import type { Refusal } from '../schemas/admin.js';
import { checkPromotion } from './rules.js';

export interface PromotionFacts {
  /** The channel a feeder's name points at: an internal channel of that name, else a public one. */
  feederSource(name: string): Channel | undefined;
  /** Whether the version (as written, `+arch` suffix included) is in that channel. */
  isMember(source: Channel, version: string): boolean;
  /** When the version entered that channel, when the store recorded it. */
  addedAt(source: Channel, version: string): Date | undefined;
  /** The releases of a version (every arch, or the one a `+arch` suffix names), metadata merged as the build merges it. */
  releasesOf(version: string): Release[];
  now: Date;
}

/** A feeder's rules as they apply to one version. */
export interface FeederCheck {
  feeder: string;
  inFeeder: boolean;
  filter?: string;
  filterMatches?: boolean;
  delay?: string;
  errata?: 'public';
  hasErrata?: boolean;
  /** When the version entered the feeder's channel. */
  inFeederSince?: string;
  /** The first promotion rule (rules.ts) that keeps it out now; absent when promotion would add it. */
  refusal?: Refusal;
  /** What promotion would need, in words. */
  message: string;
}

export interface PromotionVerdict {
  /** The first rule the promotion breaks; absent when it may go ahead. */
  refusal?: Refusal;
  /** The feeder's rules one by one, when the channel has a feeder. */
  feeder?: FeederCheck;
}

export function promotionVerdict(target: Channel, version: string, facts: PromotionFacts): PromotionVerdict {
  const feeder = target.feeder;
  const source = feeder ? facts.feederSource(feeder.name) : undefined;
  const recorded = source ? facts.addedAt(source, version) : undefined;
  // A member without a recorded time (a snapshot built outside the service) counts as just added.
  const member = source !== undefined && (recorded !== undefined || facts.isMember(source, version));
  const sourceAddedAt = recorded ?? (member ? facts.now : undefined);
  const releases = facts.releasesOf(version);
  const refusal = checkPromotion({ version, target, source, sourceAddedAt, releases, now: facts.now });
  if (!feeder) return refusal ? { refusal } : {};

  const check: FeederCheck = { feeder: feeder.name, inFeeder: member, message: '' };
  if (recorded) check.inFeederSince = recorded.toISOString();
  if (feeder.filter !== undefined) {
    check.filter = feeder.filter;
    check.filterMatches = matchesStart(feeder.filter, splitArch(version).version);
  }
  if (feeder.delay !== undefined) check.delay = feeder.delay;
  if (feeder.errata !== undefined) {
    check.errata = feeder.errata;
    check.hasErrata = releases.some((r) => (r.metadata[LABEL.url] ?? '') !== '');
  }
  if (refusal) {
    check.refusal = refusal;
    check.message = `promotion would not add it now: ${refusal.message}`;
  } else check.message = `promotion from ${feeder.name} would add it now`;
  return { ...(refusal && { refusal }), feeder: check };
}

/** A filter that does not compile matches nothing (checkPromotion names the error first). */
function matchesStart(pattern: string, text: string): boolean {
  return patternError(pattern) === undefined && compilePattern(pattern).matchesStart(text);
}
