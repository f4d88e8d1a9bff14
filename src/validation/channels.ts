// The rules a channel satisfies beyond its schema, for a channel file and the admin API alike:
// versions and tombstones are version references, the feeder's filter compiles on the RE2 engine,
// and its delay is an ISO-8601 duration.
import { patternError } from '../graph/pattern.js';
import { isIsoDuration } from '../duration.js';
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
