// Admin access for a server the bench or the reliability suite starts: a secret file, and tokens
// minted with it by `cincy token create`, as a user mints them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './procs.mjs';

/** Writes an admin secret into `dir`; its path, for --admin-jwt-secret-file. */
export function writeAdminSecret(dir) {
  const secret = join(dir, 'secret');
  writeFileSync(secret, 'a-bench-admin-secret-longer-than-thirty-two-bytes\n');
  return secret;
}

/** A token of `scope` (comma-separated) signed with the secret file, valid for an hour; `more`: other flags. */
export async function mintToken(cli, secret, scope, more = []) {
  const args = [cli, 'token', 'create', '--admin-jwt-secret-file', secret, '--scope', scope, '--ttl', '1h', ...more];
  return (await run('cincy token create', process.execPath, args)).trim();
}
