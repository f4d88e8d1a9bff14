// Reads a graph-data tree (the openshift/cincinnati-graph-data layout plus release records) from a
// directory or a .tar.gz, validating every file. A tree with any error yields no tree at all: the
// caller keeps what it had. Every problem names the file and the field.
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import * as tar from 'tar';
import { parse as parseYaml } from 'yaml';
import { LABEL, payloadDigest, type BlockedEdge, type Channel, type Release } from '../graph/model.js';
import { patternError } from '../graph/pattern.js';
import { isSemver, splitArch } from '../graph/version.js';
import {
  ARCHES,
  ChannelFileSchema,
  HARD_BLOCK_KEYS,
  PromQLRuleSchema,
  AlwaysRuleSchema,
  RawMetadataSchema,
  ReleaseRecordSchema,
  RISK_ONLY_KEYS,
  type ChannelFile,
  type MatchingRule,
  type RawMetadata,
  type ReleaseRecord,
} from '../schemas/graphData.js';
import { isUri } from '../schemas/formats.js';
import { schemaProblems, type Problem } from '../schemas/problems.js';
import { isIsoDuration } from '../promotion/duration.js';

/** Metadata the build computes; set from raw metadata they would corrupt what clusters read. */
const COMPUTED_LABELS: ReadonlySet<string> = new Set([LABEL.channels, LABEL.manifestref, LABEL.arch, LABEL.architecture]);

export const MAX_FILE_BYTES = 8 * 1024 * 1024;
export const MAX_TARBALL_BYTES = 512 * 1024 * 1024;
const YAML_OPTIONS = { maxAliasCount: 100, uniqueKeys: true, prettyErrors: false } as const;


/** A signature file of the tree, not yet verified (that needs the trust store). */
export interface TreeSignature {
  file: string;
  digest: string; // sha256:<hex>
  bytes: Buffer;
}

export interface GraphDataTree {
  schemaVersion: string;
  signatures: TreeSignature[];
  releases: Release[];
  channels: Channel[];
  blockedEdges: BlockedEdge[];
  rawMetadata: RawMetadata;
  /** sha256 over every file read, so an unchanged tree is not imported twice. */
  contentHash: string;
}

export interface ReadResult {
  tree: GraphDataTree | undefined;
  errors: Problem[];
  warnings: Problem[];
}

export type Progress = (done: number, total: number) => void;

/** Reads a directory or a `.tar.gz` of one. */
export async function readGraphData(path: string, onProgress?: Progress): Promise<ReadResult> {
  let st;
  try {
    st = statSync(path);
  } catch {
    return failed(path, '-', 'no such file or directory');
  }
  if (st.isDirectory()) return readGraphDataDir(path, onProgress);
  if (!/\.(tar\.gz|tgz)$/.test(path)) return failed(path, '-', 'expected a directory or a .tar.gz file');
  const dir = mkdtempSync(join(tmpdir(), 'cincy-graph-data-'));
  try {
    const problem = await extractTarball(path, dir);
    if (problem) return failed(path, '-', problem);
    const entries = readdirSync(dir);
    // A tarball may hold the tree at its top or inside a single folder.
    const only = entries.length === 1 ? join(dir, entries[0]!) : undefined;
    const root = only && statSync(only).isDirectory() && !entries.includes('version') ? only : dir;
    return readGraphDataDir(root, onProgress);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function extractTarball(file: string, dir: string): Promise<string | undefined> {
  let total = 0;
  let problem: string | undefined;
  try {
    await tar.x({
      file,
      cwd: dir,
      strict: true,
      filter: (entryPath, entry) => {
        const e = entry as tar.ReadEntry;
        if (e.type === 'SymbolicLink' || e.type === 'Link') {
          problem ??= `${entryPath}: links are not allowed in a graph-data tarball`;
          return false;
        }
        total += e.size ?? 0;
        if (total > MAX_TARBALL_BYTES) {
          problem ??= `unpacks to more than ${MAX_TARBALL_BYTES} bytes`;
          return false;
        }
        return true;
      },
    });
  } catch (err) {
    return `not a readable .tar.gz: ${(err as Error).message}`;
  }
  return problem;
}

function failed(file: string, field: string, message: string): ReadResult {
  return { tree: undefined, errors: [{ file, field, message }], warnings: [] };
}

class TreeReader {
  readonly errors: Problem[] = [];
  readonly warnings: Problem[] = [];
  private readonly hash = createHash('sha256');
  private readonly realRoot: string;

  constructor(readonly root: string) {
    this.realRoot = realpathSync(root);
  }

  rel(path: string): string {
    return relative(this.root, path).split(sep).join('/');
  }

  error(file: string, field: string, message: string): void {
    this.errors.push({ file, field, message });
  }

  /** The text of a file, or undefined after recording why it cannot be read. */
  text(path: string): string | undefined {
    return this.bytes(path)?.toString('utf8');
  }

  /** The bytes of a file, or undefined after recording why it cannot be read. */
  bytes(path: string): Buffer | undefined {
    const file = this.rel(path);
    let st;
    try {
      // Resolved in full, so a linked folder on the way cannot lead outside the tree either.
      const target = realpathSync(path);
      if (target !== this.realRoot && !target.startsWith(this.realRoot + sep)) {
        this.error(file, '-', 'symbolic link points outside the graph-data tree');
        return undefined;
      }
      st = statSync(target);
    } catch (err) {
      this.error(file, '-', `cannot read: ${(err as Error).message}`);
      return undefined;
    }
    if (!st.isFile()) {
      this.error(file, '-', 'not a regular file');
      return undefined;
    }
    if (st.size > MAX_FILE_BYTES) {
      this.error(file, '-', `file is ${st.size} bytes, more than the limit of ${MAX_FILE_BYTES}`);
      return undefined;
    }
    const buf = readFileSync(path);
    this.hash.update(file).update('\0').update(buf).update('\0');
    return buf;
  }

  yaml(path: string): unknown {
    const text = this.text(path);
    if (text === undefined) return undefined;
    try {
      return parseYaml(text, YAML_OPTIONS);
    } catch (err) {
      this.error(this.rel(path), '-', `invalid YAML: ${(err as Error).message.split('\n')[0]}`);
      return undefined;
    }
  }

  json(path: string): unknown {
    const text = this.text(path);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch (err) {
      this.error(this.rel(path), '-', `invalid JSON: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Files of a folder with one of the extensions, sorted; none when the folder is absent. */
  list(dir: string, extensions: string[]): string[] {
    let names: string[];
    try {
      names = readdirSync(join(this.root, dir));
    } catch {
      return [];
    }
    return names.filter((n) => extensions.some((e) => n.endsWith(e))).sort().map((n) => join(this.root, dir, n));
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

const stem = (path: string): string => path.slice(path.lastIndexOf(sep) + 1).replace(/\.(ya?ml|json)$/, '');

export function readGraphDataDir(root: string, onProgress?: Progress): ReadResult {
  const r = new TreeReader(root);
  const schemaVersion = readSchemaVersion(r);

  const channelFiles = r.list('channels', ['.yaml', '.yml']);
  const internalFiles = r.list('internal-channels', ['.yaml', '.yml']);
  const blockedFiles = r.list('blocked-edges', ['.yaml', '.yml']);
  const archDirs = listDirs(root, 'releases');
  const releaseFiles = archDirs.flatMap((arch) => r.list(join('releases', arch), ['.json']).map((f) => ({ arch, f })));
  const total = channelFiles.length + internalFiles.length + blockedFiles.length + releaseFiles.length + 1;
  let done = 0;
  const tick = (): void => {
    done += 1;
    if (onProgress && (done % 50 === 0 || done === total)) onProgress(done, total);
  };

  const channels: Channel[] = [];
  for (const [files, internal] of [[channelFiles, false], [internalFiles, true]] as const) {
    const seen = new Map<string, string>();
    for (const f of files) {
      const c = readChannel(r, f, internal);
      tick();
      if (!c) continue;
      const other = seen.get(c.name);
      if (other) r.error(r.rel(f), 'name', `duplicate channel name '${c.name}' (also in ${other})`);
      else seen.set(c.name, r.rel(f));
      channels.push(c);
    }
  }

  const blockedEdges: BlockedEdge[] = [];
  for (const f of blockedFiles) {
    const b = readBlockedEdge(r, f);
    tick();
    if (b) blockedEdges.push(b);
  }

  const releases: Release[] = [];
  for (const arch of archDirs) {
    if (!(ARCHES as readonly string[]).includes(arch)) {
      r.error(`releases/${arch}`, '-', `unknown architecture '${arch}' (known: ${ARCHES.join(', ')})`);
    }
  }
  for (const { arch, f } of releaseFiles) {
    const rel = readRelease(r, f, arch);
    tick();
    if (rel) releases.push(rel);
  }

  let rawMetadata: RawMetadata = {};
  const rawPath = join(root, 'raw', 'metadata.json');
  if (exists(rawPath)) {
    const raw = r.json(rawPath);
    if (raw !== undefined) {
      const problems = schemaProblems(RawMetadataSchema, raw, 'raw/metadata.json');
      r.errors.push(...problems);
      if (problems.length === 0) rawMetadata = raw as RawMetadata;
      for (const [version, md] of Object.entries(problems.length ? {} : rawMetadata)) {
        if (!isVersionRef(version)) r.error('raw/metadata.json', version, 'not a semantic version (optionally with +arch)');
        for (const key of Object.keys(md)) {
          if (COMPUTED_LABELS.has(key)) r.error('raw/metadata.json', `${version}.${key}`, 'computed by the server from the release records and channels; it cannot be set here');
        }
      }
    }
  }
  tick();
  const signatures = readSignatures(r, releases);

  const tree =
    r.errors.length === 0 && schemaVersion !== undefined
      ? { schemaVersion, releases, channels, blockedEdges, rawMetadata, signatures, contentHash: r.digest() }
      : undefined;
  return { tree, errors: r.errors, warnings: r.warnings };
}

/**
 * Signatures in the oc-mirror layout, `signatures/sha256/<hex>/signature-<N>`, and next to a release
 * record, `releases/<arch>/<version>.signature-<N>` (for that release's payload digest).
 */
function readSignatures(r: TreeReader, releases: Release[]): TreeSignature[] {
  const out: TreeSignature[] = [];
  for (const hex of listDirs(r.root, join('signatures', 'sha256'))) {
    if (!/^[0-9a-f]{64}$/.test(hex)) {
      r.error(`signatures/sha256/${hex}`, '-', 'not a sha256 digest (64 lowercase hex digits)');
      continue;
    }
    for (const path of bySignatureNumber(r.list(join('signatures', 'sha256', hex), ['']))) {
      if (!/\/signature-[1-9]\d*$/.test(path)) continue;
      const bytes = r.bytes(path);
      if (bytes) out.push({ file: r.rel(path), digest: `sha256:${hex}`, bytes });
    }
  }
  const digests = new Map(releases.map((rel) => [`${rel.arch}/${rel.version}`, payloadDigest(rel.payload)]));
  for (const arch of listDirs(r.root, 'releases')) {
    for (const path of bySignatureNumber(r.list(join('releases', arch), ['']))) {
      const m = /\/([^/]+)\.signature-[1-9]\d*$/.exec(path);
      if (!m) continue;
      const digest = digests.get(`${arch}/${m[1]}`);
      if (!digest) {
        r.error(r.rel(path), '-', `no release record releases/${arch}/${m[1]}.json for this signature`);
        continue;
      }
      const bytes = r.bytes(path);
      if (bytes) out.push({ file: r.rel(path), digest, bytes });
    }
  }
  return out;
}

/** signature-2 before signature-10, as the store numbers them. */
function bySignatureNumber(paths: string[]): string[] {
  const key = (p: string): [string, number] => {
    const m = /^(.*signature-)(\d+)$/.exec(p);
    return m ? [m[1]!, Number(m[2])] : [p, 0];
  };
  return [...paths].sort((a, b) => {
    const [pa, na] = key(a);
    const [pb, nb] = key(b);
    return pa < pb ? -1 : pa > pb ? 1 : na - nb;
  });
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Subfolders, links to folders included (the files read through them are checked to stay inside the tree). */
function listDirs(root: string, dir: string): string[] {
  try {
    return readdirSync(join(root, dir))
      .filter((name) => {
        try {
          return statSync(join(root, dir, name)).isDirectory();
        } catch {
          return false;
        }
      })
      .sort();
  } catch {
    return [];
  }
}

function readSchemaVersion(r: TreeReader): string | undefined {
  const path = join(r.root, 'version');
  if (!exists(path)) {
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

/** A version as graph-data writes it: semver, optionally `+<known arch>`. */
function isVersionRef(text: string): boolean {
  const ref = splitArch(text);
  return isSemver(ref.version) && (ref.arch === undefined || (ARCHES as readonly string[]).includes(ref.arch));
}

function versionRefProblem(errors: Problem[], file: string, field: string, text: string): void {
  const ref = splitArch(text);
  if (!isSemver(ref.version)) errors.push({ file, field, message: `'${text}' is not a semantic version` });
  else if (ref.arch !== undefined && !(ARCHES as readonly string[]).includes(ref.arch)) {
    errors.push({ file, field, message: `unknown architecture '${ref.arch}' (known: ${ARCHES.join(', ')})` });
  }
}

function readChannel(r: TreeReader, path: string, internal: boolean): Channel | undefined {
  const file = r.rel(path);
  const doc = r.yaml(path);
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
  if (c.name !== stem(path)) r.error(file, 'name', `'${c.name}' differs from the file name '${stem(path)}'`);
  checkChannel(c, file, r.errors);
  return { name: c.name, internal, versions: c.versions, feeder: c.feeder, tombstones: c.tombstones ?? [] };
}

/** Checks of a channel beyond its schema; shared with the admin API. */
export function checkChannel(c: ChannelFile, file: string, errors: Problem[]): void {
  c.versions.forEach((v, i) => versionRefProblem(errors, file, `versions[${i}]`, v));
  (c.tombstones ?? []).forEach((v, i) => versionRefProblem(errors, file, `tombstones[${i}]`, v));
  if (c.feeder?.filter !== undefined) {
    const e = patternError(c.feeder.filter);
    if (e) errors.push({ file, field: 'feeder.filter', message: `invalid regular expression: ${e}` });
  }
  if (c.feeder?.delay !== undefined && !isIsoDuration(c.feeder.delay)) {
    errors.push({ file, field: 'feeder.delay', message: `'${c.feeder.delay}' is not an ISO-8601 duration such as P1W or PT48H` });
  }
}

const isMapping = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);


function readBlockedEdge(r: TreeReader, path: string): BlockedEdge | undefined {
  const file = r.rel(path);
  const doc = r.yaml(path);
  if (doc === undefined) return undefined;
  const errorsBefore = r.errors.length;
  const result = classifyBlockedEdge(doc, file, stem(path), r.errors, r.warnings);
  return r.errors.length === errorsBefore ? result : undefined;
}

/**
 * Classifies a blocked edge strictly: a full risk (to, from, url, name, message, matchingRules) or a
 * hard block (to, from); anything between is an error. Shared with the admin API.
 */
export function classifyBlockedEdge(doc: unknown, file: string, id: string, errors: Problem[], warnings: Problem[]): BlockedEdge | undefined {
  const err = (field: string, message: string): void => void errors.push({ file, field, message });
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    err('(document)', 'a blocked edge is a mapping with to and from');
    return undefined;
  }
  const d = doc as Record<string, unknown>;
  const allowed = new Set<string>([...HARD_BLOCK_KEYS, ...RISK_ONLY_KEYS]);
  for (const k of Object.keys(d)) if (!allowed.has(k)) err(k, `unknown key (a blocked edge has ${[...allowed].join(', ')})`);
  for (const k of ['to', 'from'] as const) {
    if (typeof d[k] !== 'string' || d[k] === '') err(k, 'required, a non-empty string');
  }
  if (typeof d.to === 'string' && d.to !== '') versionRefProblem(errors, file, 'to', d.to);
  if (typeof d.from === 'string' && d.from !== '') {
    const e = patternError(d.from);
    if (e) err('from', `invalid regular expression: ${e}`);
  }
  if (d.fixedIn !== undefined && typeof d.fixedIn !== 'string') err('fixedIn', 'must be a version string');

  const riskKeys = RISK_ONLY_KEYS.filter((k) => d[k] !== undefined);
  let risk: BlockedEdge['risk'];
  if (riskKeys.length > 0) {
    const missing = (['url', 'name', 'message', 'matchingRules'] as const).filter((k) => d[k] === undefined);
    for (const k of missing) {
      err(k, `missing: a risk has url, name, message and matchingRules (this file has ${riskKeys.join(', ')}); a hard block has only to and from`);
    }
    if (d.url !== undefined && (typeof d.url !== 'string' || !isUri(d.url))) err('url', `'${String(d.url)}' is not a URI`);
    for (const k of ['name', 'message'] as const) {
      if (d[k] !== undefined && (typeof d[k] !== 'string' || (d[k] as string).trim() === '')) err(k, 'must be a non-empty string');
    }
    const rules = d.matchingRules;
    if (rules !== undefined) {
      if (!Array.isArray(rules) || rules.length === 0) err('matchingRules', 'must be a non-empty list of rules');
      else rules.forEach((rule, i) => checkRule(rule, `matchingRules[${i}]`, file, errors, warnings));
    }
    if (missing.length === 0) {
      risk = { url: d.url as string, name: d.name as string, message: d.message as string, matchingRules: rules as MatchingRule[] };
    }
  }
  if (errors.some((e) => e.file === file)) return undefined;
  const edge: BlockedEdge = { id, to: d.to as string, from: d.from as string };
  if (risk) edge.risk = risk;
  if (typeof d.fixedIn === 'string') edge.fixedIn = d.fixedIn;
  if (d.autoExtend !== undefined) edge.autoExtend = d.autoExtend;
  return edge;
}

function checkRule(rule: unknown, field: string, file: string, errors: Problem[], warnings: Problem[]): void {
  if (typeof rule !== 'object' || rule === null || typeof (rule as { type?: unknown }).type !== 'string') {
    errors.push({ file, field, message: 'a rule is a mapping with a type (Always or PromQL)' });
    return;
  }
  const type = (rule as { type: string }).type;
  const schema = type === 'Always' ? AlwaysRuleSchema : type === 'PromQL' ? PromQLRuleSchema : undefined;
  if (schema) errors.push(...schemaProblems(schema, rule, file, `/${field.replace(/\[(\d+)\]/g, '/$1')}`));
  else warnings.push({ file, field: `${field}.type`, message: `unknown rule type '${type}': kept and served (clusters skip rule types they do not know)` });
}

function readRelease(r: TreeReader, path: string, dirArch: string): Release | undefined {
  const file = r.rel(path);
  const doc = r.json(path);
  if (doc === undefined) return undefined;
  const problems = schemaProblems(ReleaseRecordSchema, doc, file);
  if (problems.length) {
    r.errors.push(...problems);
    return undefined;
  }
  const rec = doc as ReleaseRecord;
  const before = r.errors.length;
  checkReleaseRecord(rec, file, r.errors);
  if (rec.architecture !== dirArch) r.error(file, 'architecture', `'${rec.architecture}' but the file is under releases/${dirArch}/`);
  if (rec.version !== stem(path)) r.error(file, 'version', `'${rec.version}' differs from the file name '${stem(path)}'`);
  return r.errors.length === before ? releaseFromRecord(rec) : undefined;
}

/** Checks of a release record beyond its schema; shared with the admin API. */
export function checkReleaseRecord(rec: ReleaseRecord, file: string, errors: Problem[]): void {
  if (!isSemver(rec.version) || rec.version.includes('+')) {
    errors.push({ file, field: 'version', message: `'${rec.version}' is not a semantic version without build metadata` });
  }
  for (const key of ['previous', 'next'] as const) {
    (rec[key] ?? []).forEach((v, i) => {
      if (!isVersionRef(v)) errors.push({ file, field: `${key}[${i}]`, message: `'${v}' is not a semantic version` });
    });
  }
  const arch = rec.metadata?.['release.openshift.io/architecture'];
  if (arch !== undefined && !(arch === 'multi' && rec.architecture === 'multi')) {
    errors.push({ file, field: 'metadata.release.openshift.io/architecture', message: `'${arch}': only 'multi', on a multi release, is valid (clusters reject any other value)` });
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
