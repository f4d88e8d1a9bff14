// The payload store: a folder standing in for the volume the CVO's download Job fills. A payload lives at
// <dir>/sha256/<hex>/release-manifests/, keyed by the digest of its release image, so only a pull spec
// pinned by digest resolves (a tag could name different content tomorrow).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadPayload, PayloadError, type Payload } from './load.js';

export { DEFAULT_PAYLOAD_STORE } from './defaults.js';

const BY_DIGEST = /^[^@\s]+@sha256:([0-9a-f]{64})$/;

export class PayloadStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  /** 'sha256:<hex>' of a pull spec `<repo>@sha256:<hex>`. */
  digestOf(image: string): string {
    const m = BY_DIGEST.exec(image);
    const why =
      'a release image must be pinned by digest (<repo>@sha256:<64 hex digits>); a tag does not name fixed content';
    if (!m) throw new PayloadError(image, why);
    return `sha256:${m[1]}`;
  }

  pathOf(image: string): string {
    return join(this.dir, 'sha256', this.digestOf(image).slice('sha256:'.length), 'release-manifests');
  }

  /** The stored payload of `image`, loaded with its `{{.ReleaseImage}}` rendered as `image`. */
  load(image: string): Payload {
    return loadPayload(this.pathOf(image), image);
  }

  /** Whether the payload of `image` is stored; a pull spec that is not by digest is never stored. */
  has(image: string): boolean {
    return BY_DIGEST.test(image) && existsSync(this.pathOf(image));
  }

  /**
   * Writes a payload (file name in release-manifests/ → content) and returns its release-manifests path.
   * It is staged in a temporary folder beside its place and renamed in, so nobody ever reads a half-written
   * payload. An existing payload of the same digest is replaced: it is moved aside first, so for an instant
   * the payload is absent, never mixed.
   */
  write(image: string, files: Map<string, string>): string {
    const target = join(this.dir, 'sha256', this.digestOf(image).slice('sha256:'.length));
    for (const name of files.keys()) {
      if (!name || name.startsWith('.') || /[/\\]/.test(name))
        throw new Error(`${name}: not a plain file name (payload files sit directly in release-manifests/)`);
    }
    const nonce = `${process.pid}-${randomBytes(4).toString('hex')}`;
    const staging = `${target}.tmp-${nonce}`;
    const manifests = join(staging, 'release-manifests');
    mkdirSync(manifests, { recursive: true });
    try {
      for (const [name, content] of files) writeFileSync(join(manifests, name), content);
      if (existsSync(target)) {
        const old = `${target}.old-${nonce}`;
        renameSync(target, old);
        renameSync(staging, target);
        rmSync(old, { recursive: true, force: true });
      } else {
        renameSync(staging, target);
      }
    } catch (err) {
      rmSync(staging, { recursive: true, force: true });
      throw err;
    }
    return join(target, 'release-manifests');
  }
}
