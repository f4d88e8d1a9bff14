// Registry credentials from a docker/podman `config.json` (`{"auths": {"HOST[:PORT][/PATH]": {"auth": base64(user:pass)}}}`).
// The most specific entry wins, as podman looks them up: `host/ns/repo`, then `host/ns`, then `host`.
import { readFileSync } from 'node:fs';
import { repositoryName, type RepositoryReference } from './reference.js';

export interface Credential {
  username: string;
  password: string;
}

export class CredentialsError extends Error {}

export class RegistryCredentials {
  private constructor(
    private readonly entries: Map<string, Credential>,
    readonly source: string,
  ) {}

  static none(): RegistryCredentials {
    return new RegistryCredentials(new Map(), '(none)');
  }

  /** Reads and validates the file; every problem names the file and the entry. */
  static load(file: string): RegistryCredentials {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new CredentialsError(`${file}: cannot read registry credentials: ${(err as Error).message}`);
    }
    return RegistryCredentials.parse(text, file);
  }

  /** Validates a config.json's text (a pull secret's .dockerconfigjson); every problem names `file` and the entry. */
  static parse(text: string, file: string): RegistryCredentials {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new CredentialsError(`${file}: cannot read registry credentials: ${(err as Error).message}`);
    }
    const auths = (doc as { auths?: unknown } | null)?.auths;
    if (typeof auths !== 'object' || auths === null || Array.isArray(auths))
      throw new CredentialsError(`${file}: auths: expected an object of registry entries`);
    const entries = new Map<string, Credential>();
    for (const [key, value] of Object.entries(auths as Record<string, unknown>)) {
      const where = `${file}: auths["${key}"]`;
      const entry = (value ?? {}) as { auth?: unknown; username?: unknown; password?: unknown };
      let cred: Credential | undefined;
      if (typeof entry.auth === 'string' && entry.auth) {
        const text = Buffer.from(entry.auth, 'base64').toString('utf8');
        const colon = text.indexOf(':');
        if (colon <= 0) throw new CredentialsError(`${where}.auth: expected base64 of "username:password"`);
        cred = { username: text.slice(0, colon), password: text.slice(colon + 1) };
      } else if (typeof entry.username === 'string' && typeof entry.password === 'string') {
        cred = { username: entry.username, password: entry.password };
      }
      // An entry without a secret (a credential helper's placeholder) gives nothing to send.
      if (cred) entries.set(normalize(key), cred);
    }
    return new RegistryCredentials(entries, file);
  }

  /** The credential for a repository, or undefined to go anonymous. */
  for(ref: RepositoryReference): Credential | undefined {
    const parts = repositoryName(ref).split('/');
    for (let n = parts.length; n >= 1; n--) {
      const found = this.entries.get(parts.slice(0, n).join('/'));
      if (found) return found;
    }
    return undefined;
  }
}

/** `https://quay.io/v1/` and `quay.io` name the same registry. */
function normalize(key: string): string {
  return key
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/\/v[12]\/?$/, '')
    .replace(/\/+$/, '');
}
