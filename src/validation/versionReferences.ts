// Versions as graph-data writes them in channels, blocked edges, release records' previous and next,
// and raw metadata: a release version, optionally restricted to one architecture with `+<arch>`.
import { isReleaseVersion, splitArch } from '../graph/version.js';
import { ARCHES } from '../schemas/graphData.js';
import type { Problem } from './problems.js';

const isKnownArch = (arch: string): boolean => (ARCHES as readonly string[]).includes(arch);

/** A release version, optionally `+<known arch>`. */
export function isVersionReference(text: string): boolean {
  const ref = splitArch(text);
  return isReleaseVersion(ref.version) && (ref.arch === undefined || isKnownArch(ref.arch));
}

/** Records why `text` is not a version reference, if it is not one. */
export function checkVersionReference(text: string, file: string, field: string, errors: Problem[]): void {
  const ref = splitArch(text);
  if (!isReleaseVersion(ref.version)) errors.push({ file, field, message: `'${text}' is not a semantic version` });
  else if (ref.arch !== undefined && !isKnownArch(ref.arch)) {
    errors.push({ file, field, message: `unknown architecture '${ref.arch}' (known: ${ARCHES.join(', ')})` });
  }
}
