// The server as OpenShift's restricted-v2 runs the image: an arbitrary UID in group 0, nothing writable
// but the data folder (group 0, group-writable, as the Dockerfile makes /data). Run here with setpriv
// on the built package, whose files the UID may read and not write: it serves, takes an admin write,
// and writes nothing outside the data folder.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToken } from '../../src/cli/token.js';
import { useCleanup } from '../support/cli.js';
import { writeTree } from '../support/trees.js';

const cleanup = useCleanup();
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'cincy.js');
const UID = 1000870000; // as OpenShift assigns them: from the namespace's range

const hasProgram = (name: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;

function available(): boolean {
  const why =
    process.getuid?.() !== 0 ? 'not root (setpriv needs it)' : !hasProgram('setpriv') ? 'setpriv missing' : undefined;
  if (!why) return true;
  if (process.env.CI === 'true')
    throw new Error(`the restricted-UID test cannot run: ${why} (CI=true: nothing may skip)`);
  console.warn(`\n*** SKIPPING the restricted-UID test: ${why} ***\n`);
  return false;
}

describe.runIf(available())('an arbitrary UID in group 0 (restricted-v2)', () => {
  it('serves and writes, with the data folder the only path it may write', async () => {
    const data = cleanup.dir();
    chownSync(data, 0, 0);
    chmodSync(data, 0o770); // group 0 may write, as /data in the image
    const readable = cleanup.dir();
    chmodSync(readable, 0o755);
    const tree = writeTree(join(readable, 'tree'));
    for (const d of [
      tree,
      join(tree, 'channels'),
      join(tree, 'releases'),
      join(tree, 'releases', 'amd64'),
      join(tree, 'blocked-edges'),
    ])
      chmodSync(d, 0o755);
    const secret = join(readable, 'secret');
    writeFileSync(secret, 'a-secret-that-is-long-enough-for-hs256-0123456789\n', { mode: 0o640 });
    chownSync(secret, 0, 0);

    const child = spawn(
      'setpriv',
      [`--reuid=${UID}`, '--regid=0', '--clear-groups', '--', process.execPath, BIN, 'serve', '--port', '0'],
      {
        env: {
          PATH: process.env.PATH,
          HOME: '/', // what OpenShift sets for a UID without a passwd entry
          CINCY_DB: join(data, 'cincy.db'),
          CINCY_GRAPH_DATA: tree,
          CINCY_ADMIN_JWT_SECRET_FILE: secret,
          CINCY_LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    cleanup.add(() => child.kill('SIGKILL'));
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const seen = (b: Buffer): void => {
        out += b.toString();
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m && out.includes('"msg":"graph built"')) resolve(m[1]!);
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const token = await createToken({ adminJwtSecretFile: secret, scope: 'channels:write', ttl: '1h', subject: 'ops' });
    const put = await fetch(`${url}/api/v1/channels/restricted`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ versions: ['4.1.0'] }),
    });
    expect(put.status).toBe(201);
    // What it wrote is in the data folder, owned by the UID; it could write nowhere else it was given.
    const written = readdirSync(data);
    expect(written).toContain('cincy.db');
    for (const f of written) expect(statSync(join(data, f)).uid).toBe(UID);
    expect(out).not.toMatch(/EACCES|EROFS|permission denied/i);
  });
});
