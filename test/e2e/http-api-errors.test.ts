// One error kind for bad input on the admin and API routes (the graph
// routes keep the reference's), a 415 naming the types a route takes, a 405 with Allow, readiness
// that says why nothing is served under --require-signatures, and validate on a tree with no releases.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cincy, serveCli, useCleanup } from '../support/cli.js';
import { writeTree } from '../support/trees.js';

const cleanup = useCleanup();

describe('API errors', () => {
  it('answers bad input with invalid_request on admin and API routes, 415 with the accepted types, 405 with Allow', async () => {
    const work = cleanup.dir();
    const secret = join(work, 'secret');
    writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
    const server = await serveCli(
      ['--db', ':memory:', '--graph-data', writeTree(join(work, 'tree')), '--admin-jwt-secret-file', secret],
      cleanup,
    );
    const token = cincy([
      'token',
      'create',
      '--admin-jwt-secret-file',
      secret,
      '--scope',
      'releases:write',
    ]).stdout.trim();
    const get = async (path: string, init: RequestInit = {}) => {
      const r = await fetch(`${server.url}${path}`, init);
      return {
        status: r.status,
        allow: r.headers.get('allow'),
        body: (await r.json()) as { kind: string; value: string },
      };
    };
    for (const path of [
      '/api/v1/releases?limit=0',
      '/api/v1/releases?cursor=garbage',
      '/api/v1/audit?since=yesterday',
      '/api/v1/paths?from=4.1.0&to=4.1.1&arch=AMD',
      '/api/v1/releases/AMD64/4.1.0',
    ]) {
      const r = await get(path, { headers: { authorization: `Bearer ${token}` } });
      expect(r.status, path).toBe(400);
      expect(r.body.kind, path).toBe('invalid_request');
    }
    // The graph routes keep the reference implementation's kinds.
    expect((await get('/graph?channel=Stable')).body.kind).toBe('invalid_params');
    expect((await get('/graph')).body.kind).toBe('missing_params');

    const auth = { authorization: `Bearer ${token}` };
    const json = await get('/api/v1/releases', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/csv' },
      body: 'a,b',
    });
    expect(json.status).toBe(415);
    expect(json.body).toEqual({
      kind: 'invalid_request',
      value: 'content-type text/csv is not accepted here; send one of: application/json',
    });
    const sig = await get('/api/v1/releases/amd64/4.1.0/signatures', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/png' },
      body: 'x',
    });
    expect(sig.status).toBe(415);
    expect(sig.body.value).toContain('application/pgp-signature');

    const post = await get('/graph', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.allow).toBe('GET, HEAD');
    expect(post.body.kind).toBe('invalid_request');
    expect((await get('/api/v1/releases/amd64/4.1.0', { method: 'PUT' })).allow).toBe('DELETE, GET, HEAD');
    expect((await get('/no/such/path', { method: 'DELETE' })).status).toBe(404);
  });

  it('readyz says nothing is served when --require-signatures withholds every release', async () => {
    const work = cleanup.dir();
    const server = await serveCli(
      ['--db', ':memory:', '--graph-data', writeTree(join(work, 'tree')), '--require-signatures', '--trust-keys', work],
      cleanup,
    );
    const r = await fetch(`${server.url}/readyz`);
    expect(r.status).toBe(503);
    const body = (await r.json()) as { status: string; reason: string };
    expect(body.status).toBe('not ready');
    expect(body.reason).toContain('--require-signatures withholds every release');
  });
});

describe('validate', () => {
  it('says a tree with no release records gives empty graphs, and how to feed releases', () => {
    const tree = writeTree(join(cleanup.dir(), 'tree'), {
      'releases/amd64/4.1.0.json': undefined,
      'releases/amd64/4.1.1.json': undefined,
      'blocked-edges/4.1.1-Risk.yaml': undefined,
    });
    const r = cincy(['validate', tree]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('0 releases');
    expect(r.stdout).toContain(
      "no release records (releases/<arch>/<version>.json), so every channel's graph will be empty",
    );
    expect(r.stdout).toContain('serve --releases');
    expect(cincy(['validate', writeTree(join(cleanup.dir(), 'full'))]).stdout).not.toContain('no release records');
  });
});
