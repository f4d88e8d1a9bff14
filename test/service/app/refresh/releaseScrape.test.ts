// The attacks of a hostile or broken registry (the project's issue 30), each played by the registry of
// test/support/hostileRegistry.ts against a server started as `cincy serve` starts: every scrape is
// bounded, requests go only where the operator pointed, nothing a registry (or anyone) sent is quoted on
// /readyz, the manifest cache shrinks, and a flipping source is damped. The last good graph keeps serving.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refreshAll } from '../../../../src/app/refresh/loop.js';
import type { SourceFlags } from '../../../../src/cli/registryFlags.js';
import { startHostileRegistry, startRecorder, type HostileRegistry } from '../../../support/hostileRegistry.js';
import { startServer, type TestServer } from '../../../support/server.js';
import { useCleanup } from '../../../support/cleanup.js';

const cleanup = useCleanup();

function tree(): string {
  const dir = cleanup.dir();
  writeFileSync(join(dir, 'version'), '1.1.0\n');
  const channels = join(dir, 'channels');
  mkdirSync(channels);
  writeFileSync(join(channels, 'stable-4.16.yaml'), 'name: stable-4.16\nversions: [4.16.0, 4.16.1]\n');
  return dir;
}

async function serverOn(reg: HostileRegistry, settings: SourceFlags = {}): Promise<TestServer> {
  const server = await startServer({ graphData: tree(), registry: { releases: reg.repository, ...settings } });
  cleanup.add(() => server.close());
  return server;
}

const versions = async (server: TestServer): Promise<string[]> =>
  (await server.store.read((tx) => tx.releases.all())).map((r) => r.version).sort();

async function readyz(server: TestServer): Promise<{ status: number; text: string; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}/readyz`);
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

const failure = (server: TestServer): string | undefined => server.sources[0]!.status.lastFailure?.message;

describe('hostile finding 1: a registry whose tag list does not end', () => {
  it('fails the scrape past --registry-max-tags, keeps serving the last good releases, and says why on /readyz', async () => {
    const reg = await startHostileRegistry(cleanup);
    const server = await serverOn(reg);
    expect(await versions(server)).toEqual(['4.16.0', '4.16.1']);

    reg.attack = { kind: 'endless-tags', perPage: 60_000 };
    expect(await refreshAll(server.sources)).toBe(false);
    expect(failure(server)).toMatch(/the tag list holds more than 100000 tags \(the limit of --registry-max-tags\)/);
    // Two pages of 60,000 were asked for, not more.
    expect(reg.requests.filter((r) => r.includes('/tags/list')).length).toBe(1 + 2);
    expect(await versions(server)).toEqual(['4.16.0', '4.16.1']);
    const r = await readyz(server);
    expect(r.status).toBe(200);
    expect(r.text).toContain('more than 100000 tags');

    // A million tags, as a registry might really hold: refused at the same bound, after 11 pages.
    reg.attack = { kind: 'many-tags', count: 1_000_000 };
    reg.requests.length = 0;
    await refreshAll(server.sources);
    expect(failure(server)).toMatch(/more than 100000 tags/);
    expect(reg.requests.filter((x) => x.includes('/tags/list')).length).toBe(11);

    // A lower bound of the operator's own.
    const low = await serverOn(reg, { registryMaxTags: 1000 });
    expect(low.sources[0]!.status.lastFailure?.message).toMatch(/more than 1000 tags/);
  });
});

describe('hostile finding 2: requests go only where the operator pointed', () => {
  it('refuses redirects to a link-local address and to another loopback port, quoting nothing of their answers', async () => {
    const reg = await startHostileRegistry(cleanup);
    const elsewhere = await startRecorder(cleanup, 'SECRET-FROM-ELSEWHERE');
    const server = await serverOn(reg);

    reg.attack = { kind: 'redirect', to: 'http://169.254.169.254' };
    server.sources[0]!.status.reads = 11; // the 12th read asks each known tag again, with a HEAD
    await refreshAll(server.sources);
    expect(failure(server)).toMatch(
      /the redirect to http:\/\/169\.254\.169\.254\/v2\/ocp\/release\/manifests\/.* is refused: 169\.254\.169\.254 is a link-local address/,
    );

    reg.attack = { kind: 'redirect', to: elsewhere.url };
    server.sources[0]!.status.reads = 23;
    await refreshAll(server.sources);
    expect(failure(server)).toMatch(
      new RegExp(`is refused: ${elsewhere.host} is not the registry's host \\(allow it with --registry-allow-hosts\\)`),
    );
    expect(elsewhere.requests).toEqual([]);
    expect((await readyz(server)).text).not.toContain('SECRET');
    expect(await versions(server)).toEqual(['4.16.0', '4.16.1']);
  });

  it('follows a blob redirect only to a host the operator allowed (object storage), without the credentials', async () => {
    const storage = await startHostileRegistry(cleanup); // the same images, as storage would hold the blobs
    const reg = await startHostileRegistry(cleanup, { kind: 'redirect', to: storage.url, only: 'blobs' });
    const refused = await serverOn(reg);
    expect(refused.sources[0]!.status.lastFailure?.message).toMatch(
      new RegExp(`${storage.host} is not the registry's host \\(allow it with --registry-allow-hosts\\)`),
    );
    expect(storage.requests).toEqual([]);

    const allowed = await serverOn(reg, { registryAllowHosts: storage.host });
    expect(allowed.sources[0]!.status.lastFailure).toBeUndefined();
    expect(await versions(allowed)).toEqual(['4.16.0', '4.16.1']);
    expect(storage.requests.some((r) => r.startsWith('GET /v2/ocp/release/blobs/sha256:'))).toBe(true);
  });

  it('never quotes an error body: only the spec error codes, and the URL actually asked', async () => {
    const reg = await startHostileRegistry(cleanup, { kind: 'error-body', body: 'SECRET-IN-THE-BODY <html>' });
    const server = await serverOn(reg);
    expect(failure(server)).toMatch(new RegExp(`GET ${reg.url}/v2/ocp/release/manifests/4\\.16\\.[01]-x86_64: 500$`));
    const r = await readyz(server);
    expect(r.status).toBe(503);
    expect(r.text).not.toContain('SECRET');
  });

  it('sends the credentials to a token realm on another host only when allowed, and says nothing of its answer', async () => {
    const realm = await startRecorder(cleanup, 'SECRET-OF-THE-REALM');
    const reg = await startHostileRegistry(cleanup, { kind: 'realm', realm: `${realm.url}/token` });
    const creds = join(cleanup.dir(), 'config.json');
    const basic = Buffer.from('mirror:s3cret').toString('base64');
    writeFileSync(creds, JSON.stringify({ auths: { [reg.host]: { auth: basic } } }));

    const anonymous = await serverOn(reg, { registryCredentials: creds });
    expect(realm.requests.length).toBeGreaterThan(0);
    expect(realm.requests.every((r) => r.authorization === undefined)).toBe(true);
    const message = anonymous.sources[0]!.status.lastFailure!.message;
    expect(message).toContain(`no token from the realm ${realm.url}/token, asked without credentials`);
    expect(message).not.toMatch(/500|SECRET/); // not a port-probing oracle
    expect((await readyz(anonymous)).text).not.toContain('SECRET');

    realm.requests.length = 0;
    const allowed = await serverOn(reg, { registryCredentials: creds, registryAllowHosts: realm.host });
    expect(realm.requests[0]?.authorization).toBe(`Basic ${basic}`);
    expect(allowed.sources[0]!.status.lastFailure!.message).toMatch(/token request to .*\/token: 500$/);

    // A realm on a link-local address is not asked at all.
    reg.attack = { kind: 'realm', realm: 'http://169.254.169.254/token' };
    const metadata = await serverOn(reg, { registryCredentials: creds });
    expect(metadata.sources[0]!.status.lastFailure!.message).toMatch(
      /the token realm http:\/\/169\.254\.169\.254\/token is refused: 169\.254\.169\.254 is a link-local address/,
    );
  });
});

describe('hostile finding 8: names that are not tags', () => {
  it('leaves them out, counted and named in a warning, and never puts them in a path', async () => {
    const reg = await startHostileRegistry(cleanup, {
      kind: 'bad-tags',
      names: ['../../../../v2/ocp/gd/manifests/latest', 'a?x=1', '-leading-dash', 'x'.repeat(129)],
    });
    const server = await serverOn(reg);
    expect(failure(server)).toBeUndefined();
    expect(await versions(server)).toEqual(['4.16.0', '4.16.1']);
    const source = server.sources[0] as unknown as {
      last: { skipped: { invalidTag: number }; warnings: Array<{ message: string }> };
    };
    expect(source.last.skipped.invalidTag).toBe(4);
    expect(source.last.warnings[0]!.message).toContain('"../../../../v2/ocp/gd/manifests/latest"');
    expect(reg.requests.filter((r) => r.includes('..') || r.includes('x=1') || r.includes('gd/'))).toEqual([]);
  });
});

describe('hostile finding 3: one deadline for each request and one for the whole scrape', () => {
  it('fails a layer that trickles a byte at a time at the request deadline; a fresh server becomes ready once the registry is fixed', async () => {
    const reg = await startHostileRegistry(cleanup, { kind: 'trickle-blob', everyMs: 100 });
    const server = await serverOn(reg, { registryRequestDeadline: 2 });
    expect(failure(server)).toMatch(
      /GET http:\/\/127\.0\.0\.1:\d+\/v2\/ocp\/release\/blobs\/sha256:[0-9a-f]{64}: no whole answer within 2 s \(--registry-request-deadline\)/,
    );
    expect((await readyz(server)).status).toBe(503);
    reg.attack = { kind: 'none' };
    await refreshAll(server.sources);
    expect(failure(server)).toBeUndefined();
    expect((await readyz(server)).status).toBe(200);
  });

  it('ends the whole scrape at --registry-scrape-deadline, and /readyz shows the read under way meanwhile', async () => {
    const reg = await startHostileRegistry(cleanup);
    const server = await serverOn(reg, { registryScrapeDeadline: 3 });
    reg.attack = { kind: 'trickle-blob', everyMs: 100 };
    // The manifests forgotten: the next read reads their layers again.
    await server.store.write((tx) => tx.sql.run('DELETE FROM registry_manifests'));
    const reading = refreshAll(server.sources);
    await new Promise((r) => setTimeout(r, 1500));
    const during = (await readyz(server)).body.sources as Array<{ readingSince?: string; readingForSeconds?: number }>;
    expect(during[0]!.readingSince).toBeDefined();
    expect(during[0]!.readingForSeconds).toBeGreaterThan(0);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/cincy_source_reading\{source="[^"]+",kind="registry-releases"\} 1/);
    await reading;
    expect(failure(server)).toMatch(/the read did not end within 3 s \(--registry-scrape-deadline\)/);
    expect((await readyz(server)).body.sources).not.toHaveProperty('0.readingSince');
    expect(await versions(server)).toEqual(['4.16.0', '4.16.1']);
  });

  it('stops a layer that never ends at the request deadline, having read a bounded amount', async () => {
    const reg = await startHostileRegistry(cleanup, { kind: 'endless-blob' });
    const server = await serverOn(reg, { registryRequestDeadline: 2 });
    // Either bound may come first: what the layer unpacks to, or the request's deadline.
    expect(failure(server)).toMatch(/no whole answer within 2 s|unpacks to more than/);
    const sent = reg.streamed;
    await new Promise((r) => setTimeout(r, 500));
    expect(reg.streamed - sent).toBeLessThan(8 * 1024 * 1024); // the connection is closed: nothing more flows
  });
});

describe('hostile finding 8: a layer that unpacks to gigabytes', () => {
  it('stops unpacking at 1 GiB and leaves that image out, named, while the other release is read', async () => {
    // An 8 MB layer that unpacks to 8 GiB.
    const reg = await startHostileRegistry(cleanup, { kind: 'bomb', bytes: 8 * 1024 ** 3 });
    const server = await serverOn(reg);
    expect(failure(server)).toBeUndefined();
    expect(await versions(server)).toEqual(['4.16.0']);
    const source = server.sources[0] as unknown as { last: { warnings: Array<{ message: string }> } };
    expect(source.last.warnings.map((w) => w.message).join('\n')).toMatch(
      /not a release image: .* unpacks to more than 1073741824 bytes/,
    );
  }, 60_000);
});

describe('hostile finding 5: a registry that presents new digests every scrape', () => {
  it('keeps only the manifests a tag points at (and those the last scrape read): the cache does not grow', async () => {
    const reg = await startHostileRegistry(cleanup, { kind: 'new-digests' });
    const server = await serverOn(reg);
    const rows = (): Promise<number> =>
      server.store.read(
        async (tx) => (await tx.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM registry_manifests'))!.n,
      );
    const counts: number[] = [await rows()];
    for (let i = 0; i < 6; i++) {
      server.sources[0]!.status.reads = 11; // every known tag asked again: each points somewhere new
      await refreshAll(server.sources);
      counts.push(await rows());
    }
    // Two tags: the two manifests they point at, and the two the scrape before read.
    expect(Math.max(...counts)).toBeLessThanOrEqual(4);
    reg.attack = { kind: 'none' };
    server.sources[0]!.status.reads = 11;
    await refreshAll(server.sources);
    server.sources[0]!.status.reads = 11;
    await refreshAll(server.sources);
    expect(await rows()).toBe(2);
  });
});

describe('hostile finding 8: a registry alternating between two answers', () => {
  it('holds a flip back until two reads agree, reports the source as flapping, and applies a lasting change', async () => {
    const reg = await startHostileRegistry(cleanup);
    const server = await serverOn(reg, {});
    const url = async (): Promise<string | undefined> =>
      (await server.store.read((tx) => tx.releases.all())).find((r) => r.version === '4.16.1')?.metadata.url;
    const status = server.sources[0]!.status;
    reg.attack = { kind: 'alternate' };
    const seen: Array<string | undefined> = [];
    for (let i = 0; i < 6; i++) {
      status.reads = 11; // every tag asked again
      await refreshAll(server.sources);
      seen.push(await url());
    }
    // The first change is new, and applied; every flip back after it is held.
    expect(seen.filter((u, i) => i > 0 && u !== seen[i - 1]).length).toBeLessThanOrEqual(1);
    expect(status.flapping).toBeDefined();
    expect(status.heldBack).toBeGreaterThanOrEqual(2);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/cincy_source_flapping\{[^}]*\} 1/);
    expect((await readyz(server)).text).toContain('"flapping"');

    // The registry settles on the first image again: applied once two reads in a row give it.
    reg.attack = { kind: 'none' };
    status.reads = 11;
    await refreshAll(server.sources);
    status.reads = 11;
    await refreshAll(server.sources);
    expect(await url()).toBe('https://errata.example.com/4.16.1');
    expect(status.flapping).toBeUndefined();
  });
});
