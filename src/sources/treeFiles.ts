// One reader per kind of graph-data file. Each reads the file, checks it with the rules of
// src/validation/ plus what only a tree can get wrong (a name that differs from the file name, an
// architecture that differs from the folder), and returns the value, or undefined when it is invalid.
import type { BlockedEdge, Channel, Release } from '../graph/model.js';
import {
  ChannelFileSchema,
  ChannelFileV2Schema,
  type ChannelFile,
  type ChannelFileV2,
  type RawMetadata,
} from '../schemas/graphData.js';
import { classifyBlockedEdge } from '../validation/blockedEdges.js';
import { checkChannel, checkPhasedRollouts, isStartTime } from '../validation/channels.js';
import { schemaProblems } from '../validation/problems.js';
import { checkRawMetadata } from '../validation/rawMetadata.js';
import { checkReleaseDocument, releaseFromRecord } from '../validation/releaseRecords.js';
import { stem, type TreeReader } from './treeReader.js';

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function readSchemaVersion(r: TreeReader): string | undefined {
  const path = 'version';
  if (!r.exists(path)) {
    r.error('version', '-', 'missing: a graph-data tree starts with a version file (1.x)');
    return undefined;
  }
  const text = r.text(path)?.trim();
  if (text === undefined) return undefined;
  const m = /^(\d+)\.(\d+)(\.\d+)?$/.exec(text);
  if (!m) {
    r.error('version', '-', `'${text.slice(0, 40)}' is not a schema version like 1.1.0`);
    return undefined;
  }
  if (m[1] !== '1' && m[1] !== '2') {
    r.error('version', '-', `schema major version ${m[1]} is not supported (this server reads 1.x and 2.x)`);
    return undefined;
  }
  return text;
}

/** The major version of a schema version the tree gave ('1' when it gave none that reads). */
export const schemaMajor = (version: string | undefined): number => Number(version?.split('.')[0] ?? 1) || 1;

/**
 * The channels of a channel file: one for a 1.x file; in a 2.x tree, a public channel file may phase its
 * releases' edges (readPhasedChannels), and in the enhancement's form declare several channels.
 */
export function readChannels(r: TreeReader, file: string, internal: boolean, major: number): Channel[] {
  if (major >= 2 && !internal) return readPhasedChannels(r, file);
  const c = readChannel(r, file, internal);
  return c ? [c] : [];
}

export function readChannel(r: TreeReader, file: string, internal: boolean): Channel | undefined {
  const doc = r.yaml(file);
  if (doc === undefined) return undefined;
  // An empty YAML list is often written as a key with nothing after it.
  for (const key of ['versions', 'tombstones']) {
    if (isMapping(doc) && doc[key] === null) doc[key] = [];
  }
  if (
    !internal &&
    isMapping(doc) &&
    (doc.phasedRollouts !== undefined ||
      doc.channels !== undefined ||
      (Array.isArray(doc.versions) && doc.versions.some(isMapping)))
  ) {
    r.error(
      file,
      '-',
      'phasedRollouts, channels and versions with a start need graph-data 2.x; the version file says 1.x',
    );
    return undefined;
  }
  const problems = schemaProblems(ChannelFileSchema, doc, file);
  if (problems.length) {
    r.errors.push(...problems);
    return undefined;
  }
  const c = doc as ChannelFile;
  if (c.name !== stem(file)) r.error(file, 'name', `'${c.name}' differs from the file name '${stem(file)}'`);
  checkChannel(c, file, r.errors);
  return { name: c.name, internal, versions: c.versions, feeder: c.feeder, tombstones: c.tombstones ?? [] };
}

/** A public channel file of a 2.x tree: the 1.x form with phasedRollouts and timed versions, or several channels. */
function readPhasedChannels(r: TreeReader, file: string): Channel[] {
  const doc = r.yaml(file);
  if (doc === undefined) return [];
  for (const key of ['versions', 'tombstones']) {
    if (isMapping(doc) && doc[key] === null) doc[key] = [];
  }
  const problems = schemaProblems(ChannelFileV2Schema, doc, file);
  if (problems.length) {
    r.errors.push(...problems);
    return [];
  }
  const c = doc as ChannelFileV2;
  const before = r.errors.length;
  if ((c.name === undefined) === (c.channels === undefined)) {
    r.error(
      file,
      'name',
      'give either name (one channel) or channels (several sharing these versions), not both or neither',
    );
    return [];
  }
  if (c.channels && c.phasedRollouts)
    r.error(file, 'phasedRollouts', 'with channels, each channel gives its own phasedRollouts');
  if (c.name !== undefined && c.name !== stem(file))
    r.error(file, 'name', `'${c.name}' differs from the file name '${stem(file)}'`);
  const versions = c.versions.map((v) => (typeof v === 'string' ? v : v.name));
  const starts: Record<string, string> = {};
  c.versions.forEach((v, i) => {
    if (typeof v === 'string') return;
    if (!isStartTime(v.start))
      r.error(file, `versions[${i}].start`, `'${v.start}' is not an RFC 3339 date-time such as 2020-05-12T00:00Z`);
    else starts[v.name] = v.start;
  });
  const declared = c.channels ?? [{ name: c.name!, phasedRollouts: c.phasedRollouts }];
  const out: Channel[] = [];
  declared.forEach((d, i) => {
    const field = c.channels ? `channels[${i}].phasedRollouts` : 'phasedRollouts';
    checkPhasedRollouts(d.phasedRollouts ?? [], file, field, r.errors);
    checkChannel({ name: d.name, versions, feeder: c.feeder, tombstones: c.tombstones }, file, r.errors);
    const channel: Channel = {
      name: d.name,
      internal: false,
      versions,
      feeder: c.feeder,
      tombstones: c.tombstones ?? [],
    };
    if (d.phasedRollouts?.length || Object.keys(starts).length)
      channel.phasing = { rules: d.phasedRollouts ?? [], starts: { ...starts } };
    out.push(channel);
  });
  return r.errors.length === before ? out : [];
}

/** A blocked edge takes its id from its file name. */
export function readBlockedEdge(r: TreeReader, path: string): BlockedEdge | undefined {
  const doc = r.yaml(path);
  if (doc === undefined) return undefined;
  const errorsBefore = r.errors.length;
  const result = classifyBlockedEdge(doc, path, stem(path), r.errors, r.warnings);
  return r.errors.length === errorsBefore ? result : undefined;
}

export function readRelease(r: TreeReader, file: string, dirArch: string): Release | undefined {
  const doc = r.json(file);
  if (doc === undefined) return undefined;
  const before = r.errors.length;
  const rec = checkReleaseDocument(doc, file, r.errors);
  if (!rec) return undefined;
  if (rec.architecture !== dirArch)
    r.error(file, 'architecture', `'${rec.architecture}' but the file is under releases/${dirArch}/`);
  if (rec.version !== stem(file))
    r.error(file, 'version', `'${rec.version}' differs from the file name '${stem(file)}'`);
  return r.errors.length === before ? releaseFromRecord(rec) : undefined;
}

/** raw/metadata.json, when the tree has one. */
export function readRawMetadata(r: TreeReader): RawMetadata {
  const path = 'raw/metadata.json';
  if (!r.exists(path)) return {};
  const doc = r.json(path);
  if (doc === undefined) return {};
  return checkRawMetadata(doc, 'raw/metadata.json', r.errors) ?? {};
}
