// `cincy mirror-plan` as a shell runs it, against `cincy serve` reading release images from a real registry:
// the plan, the ImageSetConfiguration oc-mirror is given (-o yaml), and --check against a mirror
// repository that lacks one of the releases the path needs, and against one that answers every digest
// with another.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cincyAsync, serveCli, useCleanup, waitReady } from '../support/cli.js';
import { OciLayout } from '../support/ociLayout.js';
import { registryAvailable, startRegistry } from '../support/registry.js';
import { releaseImage } from '../support/releaseImages.js';
import { skopeoCopy } from '../support/skopeo.js';

const cleanup = useCleanup();

describe.runIf(registryAvailable())('cincy mirror-plan', () => {
  it(
    'plans the path, writes the ImageSetConfiguration, and names what the mirror lacks',
    { timeout: 120_000 },
    async () => {
      const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
      const layout = new OciLayout(cleanup.dir());
      // 4.16.0 reaches 4.16.2 only through 4.16.1.
      for (const [version, previous] of [
        ['4.16.0', []],
        ['4.16.1', ['4.16.0']],
        ['4.16.2', ['4.16.1']],
      ] as const) {
        await releaseImage(layout, { version, previous: [...previous], tag: version });
        await skopeoCopy(layout.dir, version, reg, `ocp/release:${version}-x86_64`);
      }
      // The disconnected mirror has the source and the target, not the stop between.
      for (const version of ['4.16.0', '4.16.2'])
        await skopeoCopy(layout.dir, version, reg, `mirror/release-images:${version}-x86_64`);
      const tree = cleanup.dir();
      mkdirSync(join(tree, 'channels'));
      writeFileSync(join(tree, 'version'), '1.1.0\n');
      writeFileSync(
        join(tree, 'channels', 'stable-4.16.yaml'),
        'name: stable-4.16\nversions: [4.16.0, 4.16.1, 4.16.2]\n',
      );
      const served = await serveCli(
        ['--db', ':memory:', '--graph-data', tree, '--releases', reg.reference('ocp/release')],
        cleanup,
      );
      await waitReady(served.url);
      const env = { CINCY_SERVER: served.url };

      const table = await cincyAsync(['mirror-plan', '--to', '4.16.2', '--from', '4.16.0'], env);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toContain('from 4.16.0: 4.16.0 -> 4.16.1 -> 4.16.2');
      expect(table.stdout).toMatch(
        /^ {2}4\.16\.1 {2}intermediate {2}stable-4\.16 {2}127\.0\.0\.1:\d+\/ocp\/release@sha256:[0-9a-f]{64}$/m,
      );

      const yaml = await cincyAsync(['mirror-plan', '--to', '4.16.2', '--from', '4.16.0', '-o', 'yaml'], env);
      expect(parse(yaml.stdout)).toEqual({
        apiVersion: 'mirror.openshift.io/v2alpha1',
        kind: 'ImageSetConfiguration',
        mirror: {
          platform: {
            architectures: ['amd64'],
            graph: true,
            channels: ['4.16.0', '4.16.1', '4.16.2'].map((v) => ({
              name: 'stable-4.16',
              minVersion: v,
              maxVersion: v,
            })),
          },
        },
      });

      const checked = await cincyAsync(
        ['mirror-plan', '--to', '4.16.2', '--from', '4.16.0', '--check', reg.reference('mirror/release-images')],
        env,
      );
      expect(checked.code).toBe(1);
      expect(checked.stdout).toMatch(/4\.16\.0 .* in the mirror$/m);
      expect(checked.stdout).toMatch(/4\.16\.1 .* MISSING from the mirror$/m);
      expect(checked.stdout).toMatch(/4\.16\.2 .* in the mirror$/m);
      const json = await cincyAsync(
        [
          'mirror-plan',
          '--to',
          '4.16.2',
          '--from',
          '4.16.0',
          '--check',
          reg.reference('mirror/release-images'),
          '-o',
          'json',
        ],
        env,
      );
      expect((JSON.parse(json.stdout) as { mirror: object }).mirror).toEqual({
        '4.16.0': 'present',
        '4.16.1': 'missing',
        '4.16.2': 'present',
      });

      // A mirror that answers 200 for every digest, with a digest of its own: nothing is taken as there.
      const lying = createServer((req, res) => {
        if (req.url === '/v2/') return res.writeHead(200).end();
        res.writeHead(200, { 'docker-content-digest': `sha256:${'0'.repeat(64)}`, 'content-length': '0' }).end();
      });
      await new Promise<void>((resolve) => lying.listen(0, '127.0.0.1', resolve));
      cleanup.add(() => new Promise((resolve) => lying.close(resolve)));
      const port = (lying.address() as AddressInfo).port;
      const fooled = await cincyAsync(
        [
          'mirror-plan',
          '--to',
          '4.16.2',
          '--from',
          '4.16.0',
          '--check',
          `http://127.0.0.1:${port}/mirror/release-images`,
        ],
        env,
      );
      expect(fooled.code).toBe(1);
      expect(fooled.stdout.match(/MISSING: the mirror answered with another digest$/gm)).toHaveLength(3);

      // A source with no path is named, and the exit code says the plan is incomplete.
      const stranded = await cincyAsync(['mirror-plan', '--to', '4.16.0', '--from', '4.16.2'], env);
      expect(stranded.code).toBe(1);
      expect(stranded.stdout).toContain('from 4.16.2: no path');
      // Bad input is a 400 naming the parameter.
      const bad = await fetch(
        `${served.url}/api/v1/mirror-plan?to=4.16.2&from=${Array.from({ length: 201 }, (_, i) => `4.0.${i}`).join(',')}`,
      );
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({
        kind: 'invalid_request',
        value: 'querystring/from: at most 200 versions, got 201',
      });
      expect((await fetch(`${served.url}/api/v1/mirror-plan?to=4.16&from=4.16.0`)).status).toBe(400);
    },
  );
});
