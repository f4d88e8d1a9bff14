// The rules a channel satisfies beyond its schema, for a channel file and the admin API alike:
// versions and tombstones are version references, the feeder's filter compiles on the RE2 engine,
// and its delay is an ISO-8601 duration.
import { patternError } from '../graph/pattern.js';
import { isIsoDuration, parseIsoDuration } from '../duration.js';
import type { ChannelFile } from '../schemas/graphData.js';
import type { Problem } from './problems.js';
import { checkVersionReference } from './versionReferences.js';

export function checkChannel(c: ChannelFile, file: string, errors: Problem[]): void {
  c.versions.forEach((v, i) => checkVersionReference(v, file, `versions[${i}]`, errors));
  (c.tombstones ?? []).forEach((v, i) => checkVersionReference(v, file, `tombstones[${i}]`, errors));
  if (c.feeder?.filter !== undefined) {
    const e = patternError(c.feeder.filter);
    if (e) errors.push({ file, field: 'feeder.filter', message: `invalid regular expression: ${e}` });
  }
  if (c.feeder?.delay !== undefined && !isIsoDuration(c.feeder.delay)) {
    errors.push({
      file,
      field: 'feeder.delay',
      message: `'${c.feeder.delay}' is not an ISO-8601 duration such as P1W or PT48H`,
    });
  }
}

/** The longest window of a phased rollout, from graph-data or the API. */
export const MAX_PHASING_MS = 90 * 86400_000;

/** RFC 3339 date-time, seconds optional as the enhancement writes it (`2020-05-12T00:00Z`). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether `text` is a date-time a version entry's `start` may hold. */
export const isStartTime = (text: string): boolean => DATE_TIME.test(text) && !Number.isNaN(Date.parse(text));

/**
 * The rules of graph-data 2.x's phased rollouts: each duration an ISO-8601 duration, each criterion
 * (a fromVersion, or none for the default) at most once. An unknown fromVersion is kept: it matches no
 * edge, as the enhancement says.
 */
export function checkPhasedRollouts(
  rules: ReadonlyArray<{ fromVersion?: string; duration: string }>,
  file: string,
  field: string,
  errors: Problem[],
): void {
  const seen = new Set<string>();
  rules.forEach((rule, i) => {
    const ms = parseIsoDuration(rule.duration);
    if (ms === undefined)
      errors.push({
        file,
        field: `${field}[${i}].duration`,
        message: `'${rule.duration}' is not an ISO-8601 duration such as P2D`,
      });
    else if (ms > MAX_PHASING_MS)
      errors.push({ file, field: `${field}[${i}].duration`, message: `'${rule.duration}' is longer than 90 days` });
    const criterion = rule.fromVersion ?? '(default)';
    if (seen.has(criterion))
      errors.push({
        file,
        field: `${field}[${i}]`,
        message: rule.fromVersion
          ? `fromVersion '${rule.fromVersion}' appears twice`
          : 'a second rule without fromVersion (the default)',
      });
    seen.add(criterion);
  });
}
