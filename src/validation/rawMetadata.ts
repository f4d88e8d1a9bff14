// raw/metadata.json: metadata merged into releases by version. Its keys are version references, and
// it may not set the labels the build computes, which would corrupt what clusters read.
import { LABEL } from '../graph/model.js';
import { RawMetadataSchema, type RawMetadata } from '../schemas/graphData.js';
import { reservedKeyProblems } from './metadataKeys.js';
import { schemaProblems, type Problem } from './problems.js';
import { isVersionReference } from './versionReferences.js';

/** Metadata the build computes from the release records and channels. */
const COMPUTED_LABELS: ReadonlySet<string> = new Set([
  LABEL.channels,
  LABEL.manifestref,
  LABEL.arch,
  LABEL.architecture,
]);

/** Checks raw metadata; returns it when it has the schema's shape (the problems say whether a later rule failed). */
export function checkRawMetadata(doc: unknown, file: string, errors: Problem[]): RawMetadata | undefined {
  const problems = schemaProblems(RawMetadataSchema, doc, file);
  errors.push(...problems);
  if (problems.length) return undefined;
  const raw = doc as RawMetadata;
  for (const [version, metadata] of Object.entries(raw)) {
    if (!isVersionReference(version))
      errors.push({ file, field: version, message: 'not a semantic version (optionally with +arch)' });
    errors.push(...reservedKeyProblems(metadata, file, version));
    for (const key of Object.keys(metadata)) {
      if (!COMPUTED_LABELS.has(key)) continue;
      const message = 'computed by the server from the release records and channels; it cannot be set here';
      errors.push({ file, field: `${version}.${key}`, message });
    }
  }
  return raw;
}
