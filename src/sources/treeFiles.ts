// One reader per kind of graph-data file. Each reads the file, checks it with the rules of
// src/validation/ plus what only a tree can get wrong (a name that differs from the file name, an
// architecture that differs from the folder), and returns the value, or undefined when it is invalid.
import type { BlockedEdge, Channel, Release } from '../graph/model.js';
import { ChannelFileSchema, type ChannelFile, type RawMetadata } from '../schemas/graphData.js';
import { classifyBlockedEdge } from '../validation/blockedEdges.js';
import { checkChannel } from '../validation/channels.js';
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
  if (m[1] !== '1') {
    r.error('version', '-', `schema major version ${m[1]} is not supported (this server reads 1.x)`);
    return undefined;
  }
  return text;
}

export function readChannel(r: TreeReader, file: string, internal: boolean): Channel | undefined {
  const doc = r.yaml(file);
  if (doc === undefined) return undefined;
  // An empty YAML list is often written as a key with nothing after it.
  for (const key of ['versions', 'tombstones']) {
    if (isMapping(doc) && doc[key] === null) doc[key] = [];
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
