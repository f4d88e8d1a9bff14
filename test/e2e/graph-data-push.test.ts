// `cincy graph-data push` as a shell runs it, against a real registry (Debian's docker-registry): the image
// laid out as oc-mirror lays the graph image out, read back by `serve --graph-data-image`; a tree moved
// under the same tag is picked up at the next read, a graph-data 2.x one with its phased rollouts; an
// invalid tree is refused and nothing is pushed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refreshAll } from '../../src/app/refresh/loop.js';
import { GRAPH_IMAGE_CMD } from '../../src/cli/graphDataPush.js';
import { RegistryClient } from '../../src/registry/client.js';
import { parseImage } from '../../src/registry/reference.js';
import { cincy, useCleanup } from '../support/cli.js';
import { registryAvailable, startRegistry } from '../support/registry.js';
import { startServer } from '../support/server.js';
import { release, writeTree } from '../support/trees.js';

const cleanup = useCleanup();

describe.runIf(registryAvailable())('cincy graph-data push', () => {
  it('pushes the tree under /var/lib/cincinnati-graph-data/, prints it by digest, and serve reads it; a moved tag is read again', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const tree = writeTree(cleanup.dir());
    mkdirSync(join(tree, '.git'));
    writeFileSync(join(tree, '.git', 'HEAD'), 'ref: refs/heads/master\n');
    const image = `${reg.reference('openshift/graph-image')}:latest`;
    const pushed = cincy(['graph-data', 'push', tree, '--image', image]);
    expect(pushed.code, pushed.stderr).toBe(0);
    const spec = pushed.stdout.trim();
    expect(spec).toMatch(new RegExp(`^${reg.host}/openshift/graph-image@sha256:[0-9a-f]{64}$`));

    // As oc-mirror's graph image: one layer of the tree's files (hidden ones left out), and the copy command.
    const client = new RegistryClient(parseImage(image, 'test'));
    cleanup.add(() => client.close());
    const manifest = (await client.manifest('latest')).manifest;
    if (manifest.kind !== 'image') throw new Error('expected an image');
    const config = JSON.parse((await client.blobBytes(manifest.config.digest)).toString()) as {
      config: { Cmd: string[] };
    };
    expect(config.config.Cmd).toEqual(GRAPH_IMAGE_CMD);
    expect(`${reg.host}/openshift/graph-image@${(await client.manifest('latest')).digest}`).toBe(spec);

    const server = await startServer({ registry: { graphDataImage: image } });
    cleanup.add(() => server.close());
    expect(server.sources[0]!.status.lastFailure).toBeUndefined();
    expect([...server.service.current!.channels]).toEqual(['stable-4.1']);
    const first = server.sources[0]!.status.digest;

    // A new tree pushed under the same tag: the next read imports it, and /readyz shows the new digest.
    writeFileSync(join(tree, 'channels', 'fast-4.1.yaml'), 'name: fast-4.1\nversions: [4.1.0]\n');
    writeFileSync(join(tree, 'releases', 'amd64', '4.1.2.json'), release('4.1.2', { previous: ['4.1.1'] }));
    const again = cincy(['graph-data', 'push', tree, '--image', image]);
    expect(again.code, again.stderr).toBe(0);
    expect(await refreshAll(server.sources)).toBe(true);
    await server.service.rebuild();
    expect([...server.service.current!.channels].sort()).toEqual(['fast-4.1', 'stable-4.1']);
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { sources: Array<{ digest: string }> };
    expect(ready.sources[0]!.digest).not.toBe(first);
    expect(`${reg.host}/openshift/graph-image@${ready.sources[0]!.digest}`).toBe(again.stdout.trim());

    // A graph-data 2.x tree: its phased rollouts are read from the image as from a folder.
    writeFileSync(join(tree, 'version'), '2.0.0\n');
    writeFileSync(
      join(tree, 'channels', 'fast-4.1.yaml'),
      'name: fast-4.1\nphasedRollouts:\n- duration: P1D\nversions:\n- 4.1.0\n- 4.1.1\n- name: 4.1.2\n  start: 2026-01-01T00:00Z\n',
    );
    expect(cincy(['graph-data', 'push', tree, '--image', image]).code).toBe(0);
    expect(await refreshAll(server.sources)).toBe(true);
    await server.service.rebuild();
    expect(server.service.current!.rollouts.map((r) => [r.channel, r.to, r.duration, r.createdBy])).toEqual([
      ['fast-4.1', '4.1.2', 'P1D', 'graph-data'],
    ]);
  });

  it('refuses an invalid tree with every problem named, and pushes nothing', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const tree = writeTree(cleanup.dir(), { 'channels/x.yaml': 'name: y\nversions: []\n' });
    const refused = cincy(['graph-data', 'push', tree, '--image', `${reg.reference('openshift/graph-image')}:latest`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("channels/x.yaml: name: 'y' differs from the file name 'x'");
    expect(refused.stderr).toContain('nothing was pushed');
    expect((await reg.requests()).filter((r) => r.method !== 'GET' && r.method !== 'HEAD')).toEqual([]);
    const noTag = cincy(['graph-data', 'push', tree, '--image', reg.reference('openshift/graph-image')]);
    expect(noTag.stderr).toContain('names no image version: add :TAG');
  });
});
