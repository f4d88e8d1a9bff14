// /api/v1/explain (src/server/routes/api/v1/explain.ts) over a listening server on the bundled graph-data
// (answers, 400s naming the field). /api/v1/paths is in paths.test.ts; `cincy path` / `cincy explain`
// against it in test/e2e/http-paths-cli.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_GRAPH_DATA } from '../../../../../../src/bundled.js';
import { startServer, type TestServer } from '../../../../../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ graphData: BUNDLED_GRAPH_DATA });
}, 60_000);
afterAll(async () => server.close());

const get = async (path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('GET /api/v1/explain', () => {
  it('explains a conditional edge, a missing one, and a version outside the channel', async () => {
    const c = await get('/api/v1/explain?from=4.12.10&to=4.12.11&channel=stable-4.12');
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({
      edge: true,
      code: 'conditional',
      blockedBy: [{ id: '4.12.11-RHELKubeletMemoryPressureMisread' }],
    });
    const out = await get('/api/v1/explain?from=4.12.10&to=4.13.0&channel=stable-4.12&arch=amd64');
    expect(out.body).toMatchObject({ edge: false, code: 'not-in-channel' });
    expect((out.body.notInChannel as Array<{ channels: string[] }>)[0]!.channels).toContain('stable-4.13');
    // eus-4.16 is fed by the internal stable channel, filtered to 4.14-4.16: the store says when 4.17.0 entered stable.
    const fed = await get('/api/v1/explain?from=4.16.20&to=4.17.0&channel=eus-4.16');
    expect(fed.body).toMatchObject({
      code: 'not-in-channel',
      notInChannel: [
        {
          version: '4.17.0',
          feeder: { feeder: 'stable', inFeeder: true, filterMatches: false, refusal: { rule: 'feeder.filter' } },
        },
      ],
    });
    expect(
      Number.isNaN(
        Date.parse((fed.body.notInChannel as Array<{ feeder: { inFeederSince: string } }>)[0]!.feeder.inFeederSince),
      ),
    ).toBe(false);
    // The promotion dry run asks the same engine: it reports the feeder's rules exactly as explain does.
    const dryRun = await server.admin.promotion.promote(
      'public',
      'eus-4.16',
      { version: '4.17.0' },
      { subject: 't' },
      true,
    );
    expect(dryRun).toMatchObject({ changed: false, dryRun: true, refusal: { rule: 'feeder.filter' } });
    expect(dryRun.feeder).toEqual((fed.body.notInChannel as Array<{ feeder: unknown }>)[0]!.feeder);
    const arm = await get('/api/v1/explain?from=4.12.10&to=4.12.11&channel=stable-4.12&arch=ppc64le');
    expect(arm.body).toMatchObject({ edge: false, code: 'not-a-release' });
  });

  it('400 naming the field', async () => {
    for (const [query, text] of [
      ['from=4.12.10&to=4.12.11', "must have required property 'channel'"],
      ['from=4.12.10&to=4.12&channel=stable-4.12', 'querystring/to'],
    ] as const) {
      const r = await get(`/api/v1/explain?${query}`);
      expect(r.status).toBe(400);
      expect(r.body.value).toContain(text);
    }
  });
});
