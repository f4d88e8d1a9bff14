// `cincy serve --releases` and `cincy import --releases` as a shell runs them, against a real registry:
// a restart fetches no blob again, a stopped registry leaves the last good graph serving with /readyz
// saying why, and a registry back with a new tag is scraped on the next interval.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cincyAsync, serveCli, useCleanup, waitReady, type Served } from '../support/cli.js';
import { OciLayout } from '../support/ociLayout.js';
import { freePort } from '../support/prometheus.js';
import { registryAvailable, startRegistry, type TestRegistry } from '../support/registry.js';
import { releaseImage } from '../support/releaseImages.js';
import { skopeoCopy } from '../support/skopeo.js';

const cleanup = useCleanup();

const blobGets = async (reg: TestRegistry): Promise<number> =>
  (await reg.requests()).filter((r) => r.method === 'GET' && r.path.includes('/blobs/')).length;

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `cincy serve` as a process, with a stop that waits for it to exit. */
async function spawnServe(args: string[]): Promise<Served & { stop(): Promise<void> }> {
  const served = await serveCli(args, cleanup);
  await waitReady(served.url);
  return {
    ...served,
    stop: () =>
      new Promise<void>((resolve) => {
        served.child.removeAllListeners('exit');
        served.child.once('exit', () => resolve());
        served.child.kill('SIGTERM');
      }),
  };
}

describe.runIf(registryAvailable())('serve --releases as a process', () => {
  it('restart without blob fetches; registry down keeps the last good graph and /readyz says why; back up, a new tag appears', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    for (const [v, prev] of [
      ['4.16.0', []],
      ['4.16.1', ['4.16.0']],
      ['4.16.2', ['4.16.0', '4.16.1']],
    ] as const) {
      await releaseImage(layout, { version: v, previous: [...prev], tag: v });
    }
    await skopeoCopy(layout.dir, '4.16.0', reg, 'ocp/release:4.16.0-x86_64');
    await skopeoCopy(layout.dir, '4.16.1', reg, 'ocp/release:4.16.1-x86_64');
    const gd = cleanup.dir();
    mkdirSync(join(gd, 'channels'));
    writeFileSync(join(gd, 'version'), '1.1.0\n');
    writeFileSync(join(gd, 'channels', 'stable-4.16.yaml'), 'name: stable-4.16\nversions: [4.16.0, 4.16.1, 4.16.2]\n');
    const db = join(cleanup.dir(), 'cincy.db');
    const args = [
      '--db',
      db,
      '--graph-data',
      gd,
      '--releases',
      reg.reference('ocp/release'),
      '--scrape-interval',
      '1s',
    ];

    let serve = await spawnServe(args);
    const versions = async (): Promise<string[]> => {
      const g = (await (await fetch(`${serve.url}/graph?channel=stable-4.16`)).json()) as {
        nodes: Array<{ version: string }>;
      };
      return g.nodes.map((n) => n.version).sort();
    };
    expect(await versions()).toEqual(['4.16.0', '4.16.1']);
    const blobs = await blobGets(reg);
    expect(blobs).toBeGreaterThan(0);

    await serve.stop();
    serve = await spawnServe(args);
    expect(await versions()).toEqual(['4.16.0', '4.16.1']);
    expect(await blobGets(reg)).toBe(blobs); // the restart read the tag list, and no blob

    await reg.stop();
    const failing = await until('a failed scrape on /readyz', async () => {
      const body = (await (await fetch(`${serve.url}/readyz`)).json()) as {
        status: string;
        sources: Array<{ lastFailure?: { message: string } }>;
      };
      return body.sources[0]!.lastFailure ? body : undefined;
    });
    expect(failing.status).toBe('ready'); // it serves the last good graph
    expect(failing.sources[0]!.lastFailure!.message).toMatch(/ECONNREFUSED/);
    expect(await versions()).toEqual(['4.16.0', '4.16.1']);
    const metrics = await (await fetch(`${serve.url}/metrics`)).text();
    expect(metrics).toMatch(
      /cincy_source_failing\{source="http:\/\/127\.0\.0\.1:\d+\/ocp\/release",kind="registry-releases"\} 1/,
    );

    await reg.start();
    await skopeoCopy(layout.dir, '4.16.2', reg, 'ocp/release:4.16.2-x86_64');
    await until('4.16.2 in the graph', async () => ((await versions()).includes('4.16.2') ? true : undefined));
    const ready = (await (await fetch(`${serve.url}/readyz`)).json()) as { sources: Array<{ lastFailure?: unknown }> };
    expect(ready.sources[0]!.lastFailure).toBeUndefined();
  });

  it('import --releases: a one-shot scrape into a store, with a summary; a bad flag names itself', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const layout = new OciLayout(cleanup.dir());
    await releaseImage(layout, { version: '4.16.0', tag: 'a' });
    layout.image({ layers: [], arch: 'amd64', tag: 'empty' });
    await skopeoCopy(layout.dir, 'a', reg, 'ocp/release:4.16.0-x86_64');
    await skopeoCopy(layout.dir, 'empty', reg, 'ocp/release:not-a-release');
    const db = join(cleanup.dir(), 'i.db');
    const ok = await cincyAsync(['import', '--db', db, '--releases', reg.reference('ocp/release')]);
    expect(ok.stderr).toContain('not a release image');
    expect(ok.stdout).toMatch(/1 releases from 2 tags .* 1 not release images/);
    expect(ok.code).toBe(0);

    const bad = await cincyAsync(['import', '--db', db, '--releases', 'ocp/release']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--releases: 'ocp/release' must start with the registry host");
    const port = await freePort();
    const down = await cincyAsync(['import', '--db', db, '--releases', `http://127.0.0.1:${port}/ocp/release`]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/ECONNREFUSED.*the store keeps what it had/);
  });
});
