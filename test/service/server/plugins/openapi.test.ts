// The OpenAPI document and Swagger UI (src/server/plugins/openapi.ts) over a listening server: the document
// served equals the checked-in openapi/openapi.json (`npm run openapi` writes it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTreeServer } from '../../../support/treeServer.js';

const served = useTreeServer();
const get = served.get;

describe('service routes', () => {
  it('serves the OpenAPI document equal to the checked-in openapi/openapi.json', async () => {
    const served = await (await get('/openapi')).json();
    const checkedIn = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'openapi', 'openapi.json'), 'utf8'),
    ) as unknown;
    expect(served, 'openapi/openapi.json is stale: run `npm run openapi`').toEqual(checkedIn);
    expect((served as { openapi: string }).openapi).toBe('3.1.0');
    expect(Object.keys((served as { paths: object }).paths)).toContain('/api/upgrades_info/v1/graph');
  });

  it('serves Swagger UI at /docs', async () => {
    const res = await get('/docs/');
    expect(res.status).toBe(200);
    expect((await res.text()).toLowerCase()).toContain('swagger');
  });
});
