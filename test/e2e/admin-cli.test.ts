// The admin commands as a shell runs them against a real `cincy serve`, the durability of an
// acknowledged write across kill -9, and tokens kept out of the logs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cincy, serveCli, useCleanup, type Served } from '../support/cli.js';
import { release, writeTree } from '../support/trees.js';

const cleanup = useCleanup();
const dir = (): string => cleanup.dir();
const serve = (args: string[]): Promise<Served> => serveCli(args, cleanup);

function setup(): { graphData: string; secret: string; db: string; work: string } {
  const work = dir();
  const secret = join(work, 'secret');
  writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
  const graphData = writeTree(join(work, 'tree'), {
    'internal-channels/candidate.yaml': 'name: candidate\nversions: []\n',
  });
  return { graphData, secret, db: join(work, 'cincy.db'), work };
}

describe('admin commands over HTTP', () => {
  it('token, release add, promote (dry run, refusal, success), withdraw, risk add/ls/rm and audit', async () => {
    const s = setup();
    const server = await serve([
      '--db',
      s.db,
      '--graph-data',
      s.graphData,
      '--admin-jwt-secret-file',
      s.secret,
      '--log-level',
      'debug',
      '--access-log',
    ]);
    const t = cincy([
      'token',
      'create',
      '--admin-jwt-secret-file',
      s.secret,
      '--scope',
      'releases:write,channels:write,risks:write',
      '--ttl',
      '10m',
      '--subject',
      'carol',
    ]);
    expect(t.code, t.stderr).toBe(0);
    const env = { CINCY_SERVER: server.url, CINCY_TOKEN: t.stdout.trim() };
    expect(cincy(['token', 'create', '--admin-jwt-secret-file', s.secret, '--scope', 'everything']).stderr).toContain(
      '--scope: unknown scope everything',
    );

    const file = join(s.work, '4.1.2.json');
    writeFileSync(
      file,
      release('4.1.2', { previous: ['4.1.1'], payload: `quay.example/ocp/release@sha256:${'c'.repeat(64)}` }),
    );
    const added = cincy(['release', 'add', file], env);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(
      /^stored 1 new release \(201\)\nVERSION\s+ARCHITECTURE\s+PAYLOAD\n4\.1\.2\s+amd64\s+quay/,
    );

    const dry = cincy(['promote', '4.1.2', '--to', 'stable-4.1', '--dry-run'], env);
    expect(dry.stdout).toContain('4.1.2 → stable-4.1: would be promoted');
    expect(dry.stdout).toMatch(/edges that would appear:\nARCH\s+FROM\s+TO\namd64\s+4\.1\.1\s+4\.1\.2/);
    const promoted = cincy(['promote', '4.1.2', '--to', 'stable-4.1', '-o', 'json'], env);
    expect(JSON.parse(promoted.stdout)).toMatchObject({ changed: true, channel: 'stable-4.1' });
    const missing = cincy(['promote', '4.9.9', '--to', 'candidate', '--internal'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('409 promotion_refused: release: 4.9.9 is not a known release');

    const riskFile = join(s.work, '4.1.2-Wobbly.yaml');
    writeFileSync(
      riskFile,
      'to: 4.1.2\nfrom: 4[.]1[.]1\nurl: https://issues.example/9\nname: Wobbly\nmessage: Nodes wobble.\nmatchingRules:\n- type: Always\n',
    );
    expect(cincy(['risk', 'add', riskFile], env).stdout).toMatch(/4\.1\.2-Wobbly\s+4\.1\.2\s+4\[\.\]1\[\.\]1\s+Wobbly/);
    const graph = (await (await fetch(`${server.url}/graph?channel=stable-4.1`)).json()) as {
      conditionalEdges: Array<{ edges: unknown[] }>;
    };
    expect(graph.conditionalEdges.map((c) => c.edges)).toContainEqual([{ from: '4.1.1', to: '4.1.2' }]);
    expect(cincy(['risk', 'ls'], env).stdout).toContain('4.1.2-Wobbly');
    expect(cincy(['risk', 'rm', '4.1.2-Wobbly', '--reason', 'fixed'], env).stdout).toBe('4.1.2-Wobbly withdrawn\n');
    expect(cincy(['withdraw', '4.1.2', '--from', 'stable-4.1', '--reason', 'regression'], env).code).toBe(0);

    const audit = cincy(['audit', '--actor', 'carol'], env);
    expect(audit.stdout.split('\n')[0]).toMatch(/^AT\s+ACTOR\s+ACTION\s+TARGET\s+REASON$/);
    for (const action of ['release.add', 'channel.promote', 'risk.add', 'risk.delete', 'channel.withdraw'])
      expect(audit.stdout).toContain(action);
    expect(cincy(['release', 'ls', '--channel', 'stable-4.1', '-o', 'json'], env).stdout).not.toContain('4.1.2');

    expect(server.log()).not.toContain(env.CINCY_TOKEN);
    expect(server.log()).toContain('"path":"/api/v1/risks"'); // requests are logged (--access-log), tokens are not
  });

  it('reliability finding 12: shows control characters of server text as escapes in tables, lines and errors, and keeps -o json exact', async () => {
    const s = setup();
    const server = await serve(['--db', s.db, '--graph-data', s.graphData, '--admin-jwt-secret-file', s.secret]);
    const token = cincy([
      'token',
      'create',
      '--admin-jwt-secret-file',
      s.secret,
      '--scope',
      'channels:write,risks:write',
    ]).stdout.trim();
    const env = { CINCY_SERVER: server.url, CINCY_TOKEN: token };
    const post = async (path: string, body: unknown): Promise<number> =>
      (
        await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).status;
    const reason = '\u001b[31mred\u001b]0;title\u0007';
    expect(await post('/api/v1/internal-channels/candidate/versions', { version: '4.1.1', reason })).toBe(201);
    const message = 'It \u202eskaerb\u202c \u001b[2J\u009b1m.';
    const risk = { to: '4.1.1', from: '4[.]1[.]0', url: 'https://issues.example/2', name: 'Bidi', message };
    expect(await post('/api/v1/risks', { ...risk, matchingRules: [{ type: 'Always' }] })).toBe(201);
    // What a terminal acts on: C0 controls (the line break aside), DEL, C1 controls, bidi overrides.
    // eslint-disable-next-line no-control-regex -- the characters looked for
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

    const audit = cincy(['audit'], env);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).not.toMatch(raw);
    expect(audit.stdout).toContain('\\x1b[31mred\\x1b]0;title\\x07');
    const json = cincy(['audit', '-o', 'json'], env);
    const entries = (JSON.parse(json.stdout) as { entries: Array<{ action: string; reason?: string }> }).entries;
    expect(entries.find((e) => e.action === 'channel.promote')?.reason).toBe(reason);

    const explained = cincy(['explain', '4.1.0', '4.1.1', '--channel', 'stable-4.1'], env);
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stdout).not.toMatch(raw);
    expect(explained.stdout).toContain('It \\u202eskaerb\\u202c \\x1b[2J\\x9b1m.');

    const refused = cincy(['promote', '4.9.9\u001b[2J', '--to', 'candidate', '--internal'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toMatch(raw);
    expect(refused.stderr).toContain('4.9.9\\x1b[2J');
  });

  it('keeps a write acknowledged with 2xx after kill -9 right after the response', async () => {
    const s = setup();
    const token = cincy([
      'token',
      'create',
      '--admin-jwt-secret-file',
      s.secret,
      '--scope',
      'channels:write',
    ]).stdout.trim();
    const first = await serve(['--db', s.db, '--graph-data', s.graphData, '--admin-jwt-secret-file', s.secret]);
    const res = await fetch(`${first.url}/api/v1/channels/fast-4.1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ versions: ['4.1.0', '4.1.1'] }),
    });
    expect(res.status).toBe(201);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const second = await serve(['--db', s.db, '--graph-data', s.graphData]);
    const g = (await (await fetch(`${second.url}/graph?channel=fast-4.1`)).json()) as {
      nodes: Array<{ version: string }>;
    };
    expect(g.nodes.map((n) => n.version)).toEqual(['4.1.0', '4.1.1']);
  });

  it('reliability finding 11: token create refuses a --ttl over 366 days and a --subject the server would refuse, naming the flag', () => {
    const s = setup();
    const create = (...extra: string[]): ReturnType<typeof cincy> =>
      cincy(['token', 'create', '--admin-jwt-secret-file', s.secret, '--scope', 'channels:write', ...extra]);
    for (const ttl of ['36500d', '367d', `${367 * 24}h`, '99999999999999999999999']) {
      const r = create('--ttl', ttl);
      expect(r.code, ttl).toBe(1);
      expect(r.stdout, ttl).toBe('');
      expect(r.stderr, ttl).toContain(`--ttl: '${ttl}' is longer than a token may live (366d at most)`);
    }
    expect(create('--ttl', '366d').code).toBe(0);
    for (const subject of ['', 'a'.repeat(257), 'eve\u001b[2J']) {
      const r = create('--subject', subject);
      expect(r.code, subject).toBe(1);
      expect(r.stderr, subject).toContain('--subject:');
    }
  });

  it('refuses a secret file that is too short, naming the flag', () => {
    const s = setup();
    writeFileSync(s.secret, 'short\n');
    // Any free port: were the secret accepted, serve would listen, and the default 8080 may be taken.
    const r = cincy([
      'serve',
      '--port',
      '0',
      '--db',
      ':memory:',
      '--graph-data',
      s.graphData,
      '--admin-jwt-secret-file',
      s.secret,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--admin-jwt-secret-file:');
    expect(r.stderr).toContain('at least 32 are needed');
  });
});
