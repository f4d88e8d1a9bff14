// A store with no room left (the project's issue 30, finding 8): `cincy serve --db-max-size` on SQLite,
// as a process, filled by admin writes until the database refuses one. The refused write answers 507
// with the reason (not a bare 500); /readyz and cincy_database_up say so while the graph keeps serving;
// every write acknowledged before is there after a restart with room, and writes land again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToken } from '../../src/cli/token.js';
import { serveCli, useCleanup } from '../support/cli.js';
import { release, writeTree } from '../support/trees.js';

const cleanup = useCleanup();

describe('hostile finding 8: a database that is full', () => {
  it('answers 507 with the reason, says so on /readyz and in the metrics, serves on, and loses no acknowledged write', async () => {
    const dir = cleanup.dir();
    const tree = writeTree(join(dir, 'tree'));
    const secret = join(dir, 'secret');
    writeFileSync(secret, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    const db = join(dir, 'cincy.db');
    const args = ['--graph-data', tree, '--db', db, '--admin-jwt-secret-file', secret];
    let served = await serveCli([...args, '--db-max-size', '512KiB'], cleanup);
    const token = await createToken({
      adminJwtSecretFile: secret,
      scope: 'releases:write',
      ttl: '1h',
      subject: 'filler',
    });
    const post = (url: string, n: number): Promise<Response> =>
      fetch(`${url}/api/v1/releases`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: release(`4.99.${n}`, {
          payload: `quay.example/ocp/release@sha256:${n.toString(16).padStart(64, '0')}`,
          metadata: { url: `https://errata.example/${n}`, note: 'x'.repeat(8000) },
        }),
      });

    const acknowledged: number[] = [];
    let refused: Response | undefined;
    for (let n = 1; n < 400 && !refused; n++) {
      const res = await post(served.url, n);
      if (res.status === 201) acknowledged.push(n);
      else refused = res;
    }
    expect(acknowledged.length).toBeGreaterThan(5);
    expect(refused!.status).toBe(507);
    const body = (await refused!.json()) as { kind: string; value: string };
    expect(body.kind).toBe('insufficient_storage');
    expect(body.value).toMatch(
      /the database .*cincy\.db is full \(its disk or the 524288 bytes of --db-max-size\): nothing was written/,
    );

    const ready = await fetch(`${served.url}/readyz`);
    expect(ready.status).toBe(200); // the graph keeps serving
    expect(((await ready.json()) as { database?: string }).database).toMatch(/is full/);
    const metrics = await (await fetch(`${served.url}/metrics`)).text();
    expect(metrics).toMatch(/^cincy_database_up 0$/m);
    expect(metrics).toMatch(/^cincy_database_full 1$/m);
    expect(
      (await fetch(`${served.url}/graph?channel=stable-4.1`, { headers: { accept: 'application/json' } })).status,
    ).toBe(200);

    // Room again (a larger bound): every acknowledged write is there, and writes land again.
    served.child.kill('SIGTERM');
    await new Promise((r) => served.child.once('exit', r));
    served = await serveCli([...args, '--db-max-size', '64MiB'], cleanup);
    for (const n of acknowledged) {
      const res = await fetch(`${served.url}/api/v1/releases/amd64/4.99.${n}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status, `4.99.${n}, acknowledged, is stored`).toBe(200);
    }
    expect((await post(served.url, 999)).status).toBe(201);
    expect(await (await fetch(`${served.url}/metrics`)).text()).toMatch(/^cincy_database_full 0$/m);
  }, 120_000);
});
