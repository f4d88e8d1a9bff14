// Admin API validation: every invalid body answers 400 naming the field, and changes nothing.
import { describe, expect, it } from 'vitest';
import { api, rec, server, stateHash, tokens, useLadderServer } from '../../support/adminServer.js';

useLadderServer();

describe('validation', () => {
  it('answers 400 naming the field for every invalid body, and changes nothing', async () => {
    const before = await stateHash();
    const cases: Array<[string, string, unknown, RegExp]> = [
      [
        'POST',
        '/api/v1/releases',
        { ...JSON.parse(rec('4.16.9', [])), payload: 'quay.example/x:latest' },
        /^body.payload: /,
      ],
      [
        'POST',
        '/api/v1/releases',
        [JSON.parse(rec('4.16.9', [])), { ...JSON.parse(rec('4.16.10', [])), architecture: 'sparc' }],
        /^body\[1\].architecture: /,
      ],
      [
        'POST',
        '/api/v1/releases',
        { ...JSON.parse(rec('4.16.9', [])), version: 'four' },
        /^body.version: 'four' is not a semantic version/,
      ],
      ['PUT', '/api/v1/channels/fast-4.17', { versions: 'all' }, /versions/],
      [
        'PUT',
        '/api/v1/channels/fast-4.17',
        { versions: ['4.17.0'], feeder: { name: 'fast', filter: '(' } },
        /^body.feeder.filter: invalid regular expression/,
      ],
      [
        'PUT',
        '/api/v1/channels/fast-4.17',
        { versions: ['4.17.0'], feeder: { name: 'fast', delay: 'a week' } },
        /^body.feeder.delay: /,
      ],
      ['PUT', '/api/v1/channels/Fast_4.17', { versions: [] }, /name/],
      ['PUT', '/api/v1/internal-channels/rc', { versions: [] }, /name/],
      ['POST', '/api/v1/channels/fast-4.16/versions', { versions: '4.16.1' }, /version/],
      ['POST', '/api/v1/risks', { to: '4.16.1', from: '.*', name: 'Half' }, /^body.url: missing/],
      [
        'POST',
        '/api/v1/risks',
        {
          to: '4.16.1',
          from: '(',
          url: 'https://x.example/',
          name: 'A',
          message: 'm',
          matchingRules: [{ type: 'Always' }],
        },
        /^body.from: invalid regular expression/,
      ],
      [
        'POST',
        '/api/v1/risks',
        { to: '4.16.1', from: '.*', url: 'not a uri', name: 'A', message: 'm', matchingRules: [{ type: 'Always' }] },
        /^body.url: 'not a uri' is not a URI/,
      ],
      [
        'POST',
        '/api/v1/risks',
        { to: '4.16.1', from: '.*', url: 'https://x.example/', name: 'A', message: 'm', matchingRules: [] },
        /^body.matchingRules: /,
      ],
      [
        'PUT',
        '/api/v1/channels/fast-4.17',
        { versions: ['4.17.0'], feeder: { name: 'fast', delays: 'P1W' } },
        /must NOT have additional properties/,
      ],
      ['PUT', '/api/v1/channels/fast-4.17', { versions: '4.17.0' }, /body\/versions must be array/],
      [
        'POST',
        '/api/v1/channels/fast-4.16/versions',
        { version: '4.16.1', force: 'true', reason: 'r' },
        /body\/force must be boolean/,
      ],
      ['POST', '/api/v1/releases', { ...JSON.parse(rec('4.16.9', [])), bogus: 1 }, /^body.bogus: /],
      [
        'POST',
        '/api/v1/releases',
        JSON.parse(rec('v4.16.9', [])),
        /^body.version: 'v4.16.9' is not a semantic version/,
      ],
    ];
    for (const [method, path, body, message] of cases) {
      const r = await api(method, path, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.value, `${method} ${path}`).toMatch(message);
    }
    // Authorization comes first: a bad body without a token is 401, not 400.
    expect((await api('PUT', '/api/v1/channels/FOO', { versions: 1 }, '')).status).toBe(401);
    expect((await api('GET', '/api/v1/audit?since=2016-12-31T23:59:60Z')).status).toBe(400);
    const bad = await fetch(`${server.url}/api/v1/risks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.all}`, 'content-type': 'application/json' },
      body: '{"to":',
    });
    expect(bad.status).toBe(400);
    expect(await stateHash()).toBe(before);
  });

  /** POSTs `text` as it is, a JSON body no client library would write. */
  const postText = async (path: string, text: string): Promise<{ status: number; body: { value?: string } }> => {
    const r = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.all}`, 'content-type': 'application/json' },
      body: text,
    });
    return { status: r.status, body: (await r.json()) as { value?: string } };
  };
  const record = JSON.parse(rec('4.16.9', [])) as Record<string, unknown>;
  /** The release record 4.16.9 without metadata as JSON text, with `extra` written in before its last brace. */
  const recordText = (extra: string): string =>
    `${JSON.stringify({ ...record, metadata: undefined }).slice(0, -1)},${extra}}`;

  it('reliability finding 13: refuses a key written twice in one object of a JSON body with 400 naming it, escapes and all', async () => {
    const before = await stateHash();
    const cases: Array<[string, string]> = [
      [recordText('"version":"4.16.10"'), "body: duplicate key 'version'"],
      [
        recordText('"metadata":{"url":"https://a.example/","url":"https://b.example/"}'),
        "body.metadata: duplicate key 'url'",
      ],
      [`[${JSON.stringify(record)},${recordText('"ver\\u0073ion":"4.16.10"')}]`, "body[1]: duplicate key 'version'"],
    ];
    for (const [text, message] of cases) {
      const r = await postText('/api/v1/releases', text);
      expect(r.status, text).toBe(400);
      expect(r.body.value, text).toContain(message);
    }
    expect(await stateHash()).toBe(before);
  });

  it('reliability finding 13: refuses a JSON body nested deeper than 64 levels with 400 (an unknown rule type 10,000 levels deep)', async () => {
    const risk = { to: '4.16.1', from: '.*', url: 'https://x.example/', name: 'Deep', message: 'm' };
    const deep = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    const body = (n: number): string =>
      `${JSON.stringify(risk).slice(0, -1)},"matchingRules":[{"type":"Unknown","deep":${deep(n)}}]}`;
    for (const text of [body(10_000), `[${'['.repeat(10_000)}${']'.repeat(10_000)}]`]) {
      const r = await postText('/api/v1/risks', text);
      expect(r.status).toBe(400);
      expect(r.body.value).toContain('nested deeper than 64 levels');
    }
    // Within the bound, an unknown rule type is kept (with a warning), however odd its shape.
    expect((await postText('/api/v1/risks', body(50))).status).toBe(201);
  });

  it('reliability finding 13: refuses __proto__, constructor and prototype as release metadata keys with 400 naming the field', async () => {
    const before = await stateHash();
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const text = recordText(`"metadata":{"${key}":"x"}`);
      const r = await postText('/api/v1/releases', text);
      expect(r.status, key).toBe(400);
      expect(r.body.value, key).toContain(`body.metadata.${key}: `);
    }
    expect(await stateHash()).toBe(before);
  });
});
