// The registry test harness against the real processes: docker-registry started here, images built
// as OCI layouts and pushed with skopeo, then read back with plain HTTP as a registry client would.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { useCleanup } from '../support/cli.js';
import { OCI_INDEX, OCI_MANIFEST, OciLayout, type Descriptor } from '../support/ociLayout.js';
import { registryAvailable, startRegistry } from '../support/registry.js';
import { skopeoCopy } from '../support/skopeo.js';

const cleanup = useCleanup();
const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
const DOCKER_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';

/** A layout with a release-like image for two architectures (sharing a base layer) and their index. */
async function releaseLayout(): Promise<{
  layout: OciLayout;
  amd64: Descriptor;
  arm64: Descriptor;
  multi: Descriptor;
}> {
  const layout = new OciLayout(cleanup.dir());
  const base = await layout.layer({ 'etc/os-release': 'ID=test\n' }, { symlinks: { bin: 'usr/bin' } });
  const image = async (arch: string): Promise<Descriptor> =>
    layout.image({
      layers: [
        base,
        await layout.layer(
          { 'release-manifests/release-metadata': JSON.stringify({ version: '4.16.0', arch }) },
          { whiteouts: ['etc/os-release'] },
        ),
      ],
      arch,
      labels: { 'io.openshift.release': '4.16.0' },
      tag: `4.16.0-${arch}`,
    });
  const amd64 = await image('amd64');
  const arm64 = await image('arm64');
  return { layout, amd64, arm64, multi: layout.index({ manifests: [amd64, arm64], tag: '4.16.0-multi' }) };
}

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

describe.runIf(registryAvailable())('the registry test harness (docker-registry and skopeo)', () => {
  it('plain HTTP: pushed tags and manifests read back by digest, the access log, and a restart that keeps them', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    expect(reg.reference('ocp/release')).toBe(`http://${reg.host}/ocp/release`);
    expect(reg.url).toBe(`http://${reg.host}`);
    const { layout, amd64, multi } = await releaseLayout();
    await skopeoCopy(layout.dir, '4.16.0-amd64', reg, 'ocp/release:4.16.0-x86_64');
    await skopeoCopy(layout.dir, '4.16.0-multi', reg, 'ocp/release:4.16.0-multi', { all: true });

    const tags = await fetch(`${reg.url}/v2/ocp/release/tags/list`).then((r) => r.json());
    expect(tags).toEqual({ name: 'ocp/release', tags: ['4.16.0-multi', '4.16.0-x86_64'] });
    const res = await fetch(`${reg.url}/v2/ocp/release/manifests/4.16.0-multi`, { headers: { accept: OCI_INDEX } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(OCI_INDEX);
    const body = Buffer.from(await res.arrayBuffer());
    // No conversion: the index arrives byte for byte, so its digest is the layout's.
    expect(res.headers.get('docker-content-digest')).toBe(multi.digest);
    expect(sha256(body)).toBe(multi.digest);
    const index = JSON.parse(body.toString()) as { manifests: Array<{ digest: string; platform: unknown }> };
    expect(index.manifests.map((m) => m.platform)).toEqual([
      { architecture: 'amd64', os: 'linux' },
      { architecture: 'arm64', os: 'linux' },
    ]);
    const single = await fetch(`${reg.url}/v2/ocp/release/manifests/4.16.0-x86_64`, {
      headers: { accept: OCI_MANIFEST },
    });
    expect(single.headers.get('docker-content-digest')).toBe(amd64.digest);
    const manifest = (await single.json()) as { layers: Descriptor[] };
    const blob = await fetch(`${reg.url}/v2/ocp/release/blobs/${manifest.layers[1]!.digest}`);
    expect(sha256(Buffer.from(await blob.arrayBuffer()))).toBe(manifest.layers[1]!.digest);

    const served = await reg.requests();
    // Five distinct blobs in the repository: the shared base, one top layer and one config per arch.
    const uploads = served.filter((r) => r.method === 'PUT' && r.path.startsWith('/v2/ocp/release/blobs/uploads/'));
    expect(uploads.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const blobGets = served.filter((r) => r.method === 'GET' && r.path.startsWith('/v2/ocp/release/blobs/sha256:'));
    expect(blobGets).toEqual([
      {
        method: 'GET',
        path: `/v2/ocp/release/blobs/${manifest.layers[1]!.digest}`,
        query: '',
        status: 200,
        userAgent: 'node',
      },
    ]);
    expect(served.some((r) => r.path === '/v2/' && r.userAgent.startsWith('skopeo/'))).toBe(true);

    await reg.stop();
    await expect(fetch(`${reg.url}/v2/`)).rejects.toThrow();
    await reg.start();
    expect(await fetch(`${reg.url}/v2/ocp/release/tags/list`).then((r) => r.json())).toEqual(tags);
    const after = await reg.requests();
    expect(after.slice(0, served.length)).toEqual(served);
    expect(after.at(-1)).toMatchObject({ method: 'GET', path: '/v2/ocp/release/tags/list', status: 200 });

    // A second registry seeded from this one's storage serves the same images without a push.
    const seeded = await startRegistry({ dir: cleanup.dir(), seed: reg.storage }, cleanup);
    expect(await fetch(`${seeded.url}/v2/ocp/release/tags/list`).then((r) => r.json())).toEqual(tags);
    expect(await seeded.requests()).toHaveLength(1);
  });

  it('Docker schema 2: skopeo converts an image and an index on the way', async () => {
    const reg = await startRegistry({ dir: cleanup.dir() }, cleanup);
    const { layout } = await releaseLayout();
    await skopeoCopy(layout.dir, '4.16.0-arm64', reg, 'ocp/release:arm64', { format: 'v2s2' });
    await skopeoCopy(layout.dir, '4.16.0-multi', reg, 'ocp/release:multi', { format: 'v2s2', all: true });
    const accept = { accept: `${DOCKER_MANIFEST}, ${DOCKER_LIST}` };
    const image = await fetch(`${reg.url}/v2/ocp/release/manifests/arm64`, { headers: accept });
    expect(image.headers.get('content-type')).toBe(DOCKER_MANIFEST);
    expect(((await image.json()) as { config: Descriptor }).config.mediaType).toBe(
      'application/vnd.docker.container.image.v1+json',
    );
    const list = await fetch(`${reg.url}/v2/ocp/release/manifests/multi`, { headers: accept });
    expect(list.headers.get('content-type')).toBe(DOCKER_LIST);
  });

  it('auth: anonymous requests are refused, skopeo pushes with the credentials file, basic auth reads', async () => {
    const auth = { user: 'puller', password: 's3cret' };
    const reg = await startRegistry({ dir: cleanup.dir(), auth }, cleanup);
    const anonymous = await fetch(`${reg.url}/v2/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(JSON.parse(readFileSync(reg.credentialsFile!, 'utf8'))).toEqual({
      auths: { [reg.host]: { auth: Buffer.from('puller:s3cret').toString('base64') } },
    });
    const { layout } = await releaseLayout();
    await skopeoCopy(layout.dir, '4.16.0-amd64', reg, 'ocp/release:4.16.0');
    // Without the credentials file skopeo is refused, and skopeoCopy says why.
    await expect(
      skopeoCopy(layout.dir, '4.16.0-amd64', { ...reg, credentialsFile: undefined }, 'ocp/release:anonymous'),
    ).rejects.toThrow(/authentication required/);
    const authorization = `Basic ${Buffer.from('puller:s3cret').toString('base64')}`;
    const tags = await fetch(`${reg.url}/v2/ocp/release/tags/list`, { headers: { authorization } });
    expect(await tags.json()).toEqual({ name: 'ocp/release', tags: ['4.16.0'] });
    const wrong = `Basic ${Buffer.from('puller:nope').toString('base64')}`;
    expect((await fetch(`${reg.url}/v2/`, { headers: { authorization: wrong } })).status).toBe(401);
  });

  it('TLS and auth: HTTPS from a test CA, which skopeo and an undici Agent trust', async () => {
    const reg = await startRegistry(
      { dir: cleanup.dir(), tls: true, auth: { user: 'puller', password: 's3cret' } },
      cleanup,
    );
    expect(reg.url).toBe(`https://${reg.host}`);
    expect(reg.reference('ocp/release')).toBe(`${reg.host}/ocp/release`);
    const { layout, multi } = await releaseLayout();
    await skopeoCopy(layout.dir, '4.16.0-multi', reg, 'ocp/release:4.16.0-multi', { all: true });
    const agent = new Agent({ connect: { ca: readFileSync(reg.caFile!, 'utf8') } });
    cleanup.add(() => agent.close());
    const res = await undiciFetch(`${reg.url}/v2/ocp/release/manifests/4.16.0-multi`, {
      dispatcher: agent,
      headers: { accept: OCI_INDEX, authorization: `Basic ${Buffer.from('puller:s3cret').toString('base64')}` },
    });
    expect(res.headers.get('docker-content-digest')).toBe(multi.digest);
    await expect(fetch(`${reg.url}/v2/`)).rejects.toThrow(); // not without the CA
  });
});
