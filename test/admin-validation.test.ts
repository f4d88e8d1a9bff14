// Admin API validation: every invalid body answers 400 naming the field, and changes nothing.
import { describe, expect, it } from 'vitest';
import { api, rec, server, stateHash, tokens, useLadderServer } from './support/adminServer.js';

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
});
