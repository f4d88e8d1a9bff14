// Names of registry repositories and images as the flags take them: `[http://|https://]HOST[:PORT]/REPOSITORY`
// with `:TAG` or `@sha256:DIGEST` for an image. A scheme of http means plain HTTP; none (or https) means HTTPS.
// The registry host must be written out: there is no implied default registry.

export interface RepositoryReference {
  /** False for a registry written with http://. */
  secure: boolean;
  /** host[:port], as pull specs name it. */
  registry: string;
  repository: string;
}

export interface ImageReference extends RepositoryReference {
  tag?: string;
  digest?: string;
}

export class ReferenceError extends Error {}

// The distribution spec's grammar for repository names, tags and sha256 digests.
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REPOSITORY = new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`);
export const TAG = /^[\w][\w.-]{0,127}$/;
export const DIGEST = /^sha256:[0-9a-f]{64}$/;
const HOST =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])(?::\d{1,5})?$/;

/** Parses `[scheme://]host[:port]/repository`; `what` names the flag in errors. */
export function parseRepository(text: string, what: string): RepositoryReference {
  const ref = parseImage(text, what, false);
  return { secure: ref.secure, registry: ref.registry, repository: ref.repository };
}

/** Parses `[scheme://]host[:port]/repository(:tag|@sha256:digest)`; with `needsVersion` false, neither is allowed. */
export function parseImage(text: string, what: string, needsVersion = true): ImageReference {
  const fail = (why: string): never => {
    throw new ReferenceError(`${what}: '${text}' ${why}`);
  };
  let rest = text.trim();
  let secure = true;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(rest);
  if (scheme) {
    const name = scheme[1]!.toLowerCase();
    if (name !== 'http' && name !== 'https') fail(`has the scheme ${name}:// (only http:// and https:// are known)`);
    secure = name === 'https';
    rest = rest.slice(scheme[0].length);
  }
  const slash = rest.indexOf('/');
  if (slash <= 0) fail('names no repository: expected HOST[:PORT]/REPOSITORY');
  const registry = rest.slice(0, slash);
  if (!HOST.test(registry)) fail(`has an invalid registry host '${registry}'`);
  if (!/[.:]/.test(registry) && registry !== 'localhost')
    fail(`must start with the registry host (e.g. quay.io/${rest}): '${registry}' is not a host name`);
  let path = rest.slice(slash + 1);
  let tag: string | undefined;
  let digest: string | undefined;
  const at = path.indexOf('@');
  if (at >= 0) {
    digest = path.slice(at + 1);
    path = path.slice(0, at);
    if (!DIGEST.test(digest)) fail(`has an invalid digest '${digest}' (expected sha256: and 64 hex digits)`);
  }
  const colon = path.lastIndexOf(':');
  if (colon >= 0) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG.test(tag)) fail(`has an invalid tag '${tag}'`);
  }
  if (!REPOSITORY.test(path)) fail(`has an invalid repository name '${path}' (lower case, digits, . _ - and /)`);
  if (!needsVersion && (tag || digest)) fail('names an image: give the repository alone, without :tag or @digest');
  if (needsVersion && !tag && !digest) fail('names no image version: add :TAG or @sha256:DIGEST');
  return { secure, registry, repository: path, ...(tag && { tag }), ...(digest && { digest }) };
}

/** `host[:port]/repository`: how pull specs, credentials and the store name a repository (no scheme). */
export function repositoryName(ref: RepositoryReference): string {
  return `${ref.registry}/${ref.repository}`;
}

/** Whether `text` is `host[:port]` as a pull spec names a registry (no scheme, no path). */
export function isRegistryHost(text: string): boolean {
  return HOST.test(text);
}

/** The pull spec of one manifest of a repository, without a scheme: `host[:port]/repository@digest`. */
export function pullSpec(ref: RepositoryReference, digest: string): string {
  return `${repositoryName(ref)}@${digest}`;
}

/** The reference as a person wrote it (scheme only when plain HTTP). */
export function describe(ref: ImageReference): string {
  const base = `${ref.secure ? '' : 'http://'}${repositoryName(ref)}`;
  return ref.digest ? `${base}@${ref.digest}` : ref.tag ? `${base}:${ref.tag}` : base;
}
