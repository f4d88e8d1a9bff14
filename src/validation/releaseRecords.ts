// Release records, in a tree or an admin request: the schema, then the rules the schema cannot say.
import { LABEL, type Release } from '../graph/model.js';
import { isReleaseVersion } from '../graph/version.js';
import { ReleaseRecordSchema, type ReleaseRecord } from '../schemas/graphData.js';
import { reservedKeyProblems } from './metadataKeys.js';
import { schemaProblems, type Problem } from './problems.js';
import { isVersionReference } from './versionReferences.js';

/**
 * Checks a document as a release record; returns it when it has the record's shape (even if a later
 * rule failed: the problems say so), undefined when it does not.
 */
export function checkReleaseDocument(doc: unknown, file: string, errors: Problem[]): ReleaseRecord | undefined {
  const problems = schemaProblems(ReleaseRecordSchema, doc, file);
  errors.push(...problems);
  if (problems.length) return undefined;
  const rec = doc as ReleaseRecord;
  checkReleaseRecord(rec, file, errors);
  return rec;
}

/** Checks of a release record beyond its schema. */
function checkReleaseRecord(rec: ReleaseRecord, file: string, errors: Problem[]): void {
  if (!isReleaseVersion(rec.version)) {
    errors.push({
      file,
      field: 'version',
      message: `'${rec.version}' is not a semantic version without build metadata`,
    });
  }
  for (const key of ['previous', 'next'] as const) {
    (rec[key] ?? []).forEach((v, i) => {
      if (!isVersionReference(v))
        errors.push({ file, field: `${key}[${i}]`, message: `'${v}' is not a semantic version` });
    });
  }
  errors.push(...reservedKeyProblems(rec.metadata ?? {}, file, 'metadata'));
  // Clusters reject a release whose architecture label says anything but multi (and only on a multi release).
  const arch = rec.metadata?.[LABEL.architecture];
  if (arch !== undefined && !(arch === 'multi' && rec.architecture === 'multi')) {
    const message = `'${arch}': only 'multi', on a multi release, is valid (clusters reject any other value)`;
    errors.push({ file, field: `metadata.${LABEL.architecture}`, message });
  }
}

export function releaseFromRecord(rec: ReleaseRecord): Release {
  return {
    version: rec.version,
    arch: rec.architecture,
    payload: rec.payload,
    previous: rec.previous ?? [],
    next: rec.next ?? [],
    metadata: { ...(rec.metadata ?? {}) },
  };
}
