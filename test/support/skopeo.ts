// Pushing an OCI layout's tagged image to a test registry with Debian's skopeo, with the TLS and
// credential flags that registry needs. skopeo converts to Docker schema 2 on the way when asked.
import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import type { TestRegistry } from './registry.js';

export const SKOPEO = '/usr/bin/skopeo';

export interface CopyOptions {
  /** Manifest type in the registry: 'oci' (default: as in the layout) or 'v2s2' (Docker schema 2). */
  format?: 'oci' | 'v2s2';
  /** For an index: copy every platform's image too (--multi-arch=all); otherwise skopeo picks this host's. */
  all?: boolean;
}

/** The destination flags for `registry`: TLS off for plain HTTP, its CA for TLS, its credentials file for auth. */
export function skopeoDestFlags(registry: TestRegistry): string[] {
  const flags = registry.caFile
    ? ['--dest-cert-dir', dirname(registry.caFile), '--dest-tls-verify=true'] // the CA is alone in its folder
    : ['--dest-tls-verify=false'];
  // Never the user's own auth files: either the registry's credentials file or none at all.
  flags.push(...(registry.credentialsFile ? ['--dest-authfile', registry.credentialsFile] : ['--dest-no-creds']));
  return flags;
}

/**
 * Copies `oci:layoutDir:tag` to `registry` as `repoAndTag` ('repo:tag'); throws with skopeo's stderr on failure.
 * A registry 500 is retried (twice at most): with parallel copies into one repository, skopeo's HEAD for
 * a blob that another copy is committing at that moment got a 500 from distribution 2.8 once in about a
 * thousand copies here; the copy itself is idempotent.
 */
export async function skopeoCopy(
  layoutDir: string,
  tag: string,
  registry: TestRegistry,
  repoAndTag: string,
  opts: CopyOptions = {},
): Promise<void> {
  const args = [
    '--insecure-policy', // no /etc/containers/policy.json needed
    'copy',
    '--quiet',
    ...skopeoDestFlags(registry),
    ...(opts.format ? ['--format', opts.format] : []),
    ...(opts.all ? ['--multi-arch=all'] : []),
    `oci:${layoutDir}:${tag}`,
    `docker://${registry.host}/${repoAndTag}`,
  ];
  for (let attempt = 1; ; attempt++) {
    const stderr = await new Promise<string | undefined>((resolve) => {
      execFile(SKOPEO, args, { timeout: 60_000 }, (err, _stdout, stderr) =>
        resolve(err ? stderr || err.message : undefined),
      );
    });
    if (stderr === undefined) return;
    if (attempt < 3 && stderr.includes('500 (Internal Server Error)')) continue;
    throw new Error(`skopeo ${args.join(' ')} failed: ${stderr}`);
  }
}
