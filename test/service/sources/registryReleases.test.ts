// Sigstore signature tags beside release images, as oc-mirror v2 mirrors them (`sha256-<hex>.sig`, and the
// `.att` and `.sbom` attachments cosign tags the same way): a scrape counts them as signatures and warns
// about none of them, while a tag so named that holds a release image is still read as one, and anything
// else that is not a release image is still said loudly.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReleaseScrapeSource } from '../../../src/app/refresh/releaseScrape.js';
import { useCleanup } from '../../support/cleanup.js';
import { OciLayout } from '../../support/ociLayout.js';
import {
  dockerImage,
  dockerList,
  ocpReleaseImage,
  signatureTag,
  sigstoreKeys,
  sigstoreSignature,
} from '../../support/ocMirror.js';
import { serveLayout } from '../../support/layoutRegistry.js';
import { startServer } from '../../support/server.js';

const cleanup = useCleanup();

function tree(): string {
  const dir = cleanup.dir();
  writeFileSync(join(dir, 'version'), '1.1.0\n');
  mkdirSync(join(dir, 'channels'));
  writeFileSync(join(dir, 'channels', 'stable-4.16.yaml'), 'name: stable-4.16\nversions: [4.16.0, 4.16.1, 4.16.2]\n');
  return dir;
}

describe('sigstore signature tags beside release images', () => {
  it('are counted as signatures, not warned about; a release under such a name is read; other images are warned about', async () => {
    const layout = new OciLayout(cleanup.dir());
    const { privateKey } = sigstoreKeys();
    const upstream = 'quay.io/openshift-release-dev/ocp-release';
    const single = await ocpReleaseImage(layout, { version: '4.16.0' });
    const members = [
      await ocpReleaseImage(layout, { version: '4.16.1', previous: ['4.16.0'], arch: 'amd64' }),
      await ocpReleaseImage(layout, { version: '4.16.1', previous: ['4.16.0'], arch: 'arm64' }),
    ];
    const multi = dockerList(layout, members);
    // A release image pushed, by mistake or design, under a name of the signature convention.
    const misnamed = await ocpReleaseImage(layout, { version: '4.16.2', previous: ['4.16.0'] });
    const tools = dockerImage(layout, { layers: [await layout.layer({ 'usr/bin/oc': 'oc\n' })], arch: 'amd64' });
    const signature = (d: { digest: string }): ReturnType<typeof sigstoreSignature> =>
      sigstoreSignature(layout, d.digest, upstream, privateKey);

    const reg = await serveLayout(
      layout,
      'openshift/release-images',
      {
        '4.16.0-x86_64': single,
        '4.16.1-multi': multi,
        [signatureTag(single.digest)]: signature(single),
        // oc-mirror copies the signature of a manifest list and of each image in it.
        [signatureTag(multi.digest)]: signature(multi),
        [signatureTag(members[0]!.digest)]: signature(members[0]!),
        [signatureTag(members[1]!.digest)]: signature(members[1]!),
        [`${single.digest.replace(':', '-')}.att`]: signature(single),
        [`${single.digest.replace(':', '-')}.sbom`]: signature(single),
        [signatureTag(tools.digest)]: misnamed,
        tools,
        // Not the convention (a short digest): a signature under another name is said, as any non-release is.
        'sha256-0123.sig': signature(single),
      },
      cleanup,
    );
    const server = await startServer({ graphData: tree(), registry: { releases: reg.repository } });
    cleanup.add(() => server.close());

    const source = server.sources[0] as ReleaseScrapeSource;
    expect(source.status.lastFailure).toBeUndefined();
    const last = source.last!;
    expect(last.releases.map((r) => `${r.arch}/${r.version}`).sort()).toEqual([
      'amd64/4.16.0',
      'amd64/4.16.2',
      'multi/4.16.1',
    ]);
    expect(last.skipped).toMatchObject({ signature: 6, notRelease: 2, member: 0 });
    expect(last.warnings.map((w) => w.file).sort()).toEqual([
      `${reg.repository}:sha256-0123.sig`,
      `${reg.repository}:tools`,
    ]);
    // /readyz lists only those two.
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { sources: Array<{ warnings?: string[] }> };
    expect(ready.sources[0]!.warnings).toHaveLength(2);
  });
});
