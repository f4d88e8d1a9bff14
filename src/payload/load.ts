// Reads and validates a release payload's release-manifests/ folder, as the CVO does before it applies
// anything: release-metadata, image-references, and every manifest file with its runlevel and component.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { parseAllDocuments } from '#yaml';

export interface KubeDoc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

export interface Manifest {
  file: string;
  runlevel: number;
  component: string;
  docs: KubeDoc[];
}

export interface ReleaseMetadata {
  kind: 'cincinnati-metadata-v0';
  version: string;
  previous?: string[];
  metadata?: Record<string, unknown>;
}

export interface Payload {
  version: string;
  metadata: ReleaseMetadata;
  manifests: Manifest[];
  /** image-references: tag name → pull spec. */
  images: Map<string, string>;
}

/** How many Kubernetes documents the manifests hold: the M of "N of M done". */
export const documentCount = (manifests: Manifest[]): number => manifests.reduce((n, m) => n + m.docs.length, 0);

export class PayloadError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'PayloadError';
  }
}

/**
 * What the CVO's manifests name the release image as when the payload is made before its image (whose digest
 * depends on the payload): loading renders it with the pull spec of the release, as the real CVO renders its
 * own manifests.
 */
export const RELEASE_IMAGE_PLACEHOLDER = '{{.ReleaseImage}}';

/** The CVO's manifest name rule: runlevel, then the component (dashes allowed, ended by `_`). */
export const MANIFEST_NAME = /^0000_(\d+)_([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*?)_/;
const MAX_FILE = 4 * 1024 * 1024;
const MAX_ALIASES = 100;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

function readText(dir: string, file: string): string {
  const path = join(dir, file);
  if (!existsSync(path)) throw new PayloadError(file, `not found in ${dir}`);
  const size = statSync(path).size;
  if (size > MAX_FILE) throw new PayloadError(file, `${size} bytes, more than the 4 MiB a payload file may have`);
  return readFileSync(path, 'utf8');
}

function readJson(dir: string, file: string): unknown {
  try {
    return JSON.parse(readText(dir, file));
  } catch (err) {
    if (err instanceof PayloadError) throw err;
    throw new PayloadError(file, `not valid JSON: ${(err as Error).message}`);
  }
}

function releaseMetadata(dir: string): ReleaseMetadata {
  const file = 'release-metadata';
  const m = readJson(dir, file);
  if (!isObject(m)) throw new PayloadError(file, 'must be a JSON object');
  if (m.kind !== 'cincinnati-metadata-v0')
    throw new PayloadError(file, `kind: must be cincinnati-metadata-v0, not ${JSON.stringify(m.kind)}`);
  if (!nonEmpty(m.version) || semver.valid(m.version) !== m.version)
    throw new PayloadError(file, `version: ${JSON.stringify(m.version)} is not a semantic version`);
  if (m.previous !== undefined) {
    if (!Array.isArray(m.previous)) throw new PayloadError(file, 'previous: must be a list of versions');
    m.previous.forEach((v, i) => {
      if (typeof v !== 'string' || semver.valid(v) !== v)
        throw new PayloadError(file, `previous[${i}]: ${JSON.stringify(v)} is not a semantic version`);
    });
  }
  if (m.metadata !== undefined && !isObject(m.metadata)) throw new PayloadError(file, 'metadata: must be an object');
  return m as unknown as ReleaseMetadata;
}

function imageReferences(dir: string, version: string): Map<string, string> {
  const file = 'image-references';
  const s = readJson(dir, file);
  if (!isObject(s) || s.kind !== 'ImageStream') throw new PayloadError(file, 'kind: must be ImageStream');
  if (s.apiVersion !== 'image.openshift.io/v1')
    throw new PayloadError(file, `apiVersion: must be image.openshift.io/v1, not ${JSON.stringify(s.apiVersion)}`);
  const name = isObject(s.metadata) ? s.metadata.name : undefined;
  if (name !== version)
    throw new PayloadError(
      file,
      `metadata.name: ${JSON.stringify(name)} is not the release-metadata version ${version}`,
    );
  const tags = isObject(s.spec) ? s.spec.tags : undefined;
  if (!Array.isArray(tags)) throw new PayloadError(file, 'spec.tags: must be a list');
  const images = new Map<string, string>();
  tags.forEach((t: unknown, i) => {
    const from = isObject(t) && isObject(t.from) ? t.from : {};
    if (!isObject(t) || !nonEmpty(t.name))
      throw new PayloadError(file, `spec.tags[${i}].name: must be a non-empty string`);
    if (from.kind !== 'DockerImage' || !nonEmpty(from.name))
      throw new PayloadError(file, `spec.tags[${i}].from: must be {kind: DockerImage, name: <pull spec>}`);
    if (images.has(t.name)) throw new PayloadError(file, `spec.tags[${i}].name: ${t.name} appears twice`);
    images.set(t.name, from.name);
  });
  return images;
}

function manifest(dir: string, file: string, releaseImage: string | undefined): Manifest {
  const m = MANIFEST_NAME.exec(file);
  if (!m) throw new PayloadError(file, 'does not match 0000_<runlevel>_<component>_<name>.yaml');
  const docs: KubeDoc[] = [];
  let text = readText(dir, file);
  // As the CVO renders its own manifests: the text, before it is parsed.
  if (releaseImage !== undefined) text = text.replaceAll(RELEASE_IMAGE_PLACEHOLDER, releaseImage);
  parseAllDocuments(text).forEach((doc, i) => {
    const at = `document ${i + 1}`;
    if (doc.errors.length) throw new PayloadError(file, `${at}: invalid YAML: ${doc.errors[0]!.message}`);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIASES });
    } catch (err) {
      throw new PayloadError(file, `${at}: ${(err as Error).message}`);
    }
    if (value === null || value === undefined) return; // an empty document, as between two `---`
    if (!isObject(value)) throw new PayloadError(file, `${at}: must be an object (a Kubernetes manifest)`);
    for (const field of ['apiVersion', 'kind'] as const) {
      if (!nonEmpty(value[field])) throw new PayloadError(file, `${at}: ${field}: must be a non-empty string`);
    }
    if (!isObject(value.metadata)) throw new PayloadError(file, `${at}: metadata: must be an object`);
    if (!nonEmpty(value.metadata.name))
      throw new PayloadError(file, `${at}: metadata.name: must be a non-empty string`);
    if (value.metadata.namespace !== undefined && !nonEmpty(value.metadata.namespace))
      throw new PayloadError(file, `${at}: metadata.namespace: must be a non-empty string`);
    docs.push(value as KubeDoc);
  });
  return { file, runlevel: Number(m[1]), component: m[2]!, docs };
}

/**
 * Loads the payload in `dir`: a release-manifests/ folder, or a folder holding one (a store entry).
 * With `releaseImage` (the pull spec of the release being loaded), every `{{.ReleaseImage}}` of the
 * manifests becomes that pull spec; without it they stay as written. Throws a PayloadError naming the
 * file at the first problem.
 */
export function loadPayload(dir: string, releaseImage?: string): Payload {
  if (releaseImage !== undefined && !/^[^\s"'{}\\]+$/.test(releaseImage))
    throw new PayloadError('release-manifests', `the release image '${releaseImage}' is not a pull spec to render`);
  if (existsSync(join(dir, 'release-manifests'))) dir = join(dir, 'release-manifests');
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new PayloadError('release-manifests', `${dir} is not a folder`);
  const metadata = releaseMetadata(dir);
  const images = imageReferences(dir, metadata.version);
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ya?ml|json)$/.test(e.name))
    .map((e) => e.name)
    .sort();
  return { version: metadata.version, metadata, manifests: names.map((n) => manifest(dir, n, releaseImage)), images };
}
