// Route schemas compiled on first use (src/server/lazyCompile.ts): every request and response schema of
// every route of a built app compiles, so a schema that does not fails here, not only at the first
// request that needs it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileAllSchemas, startServer, tempDir, type TestServer } from '../../support/server.js';
import { writeTree } from '../../support/trees.js';

let server: TestServer;
let dir: { path: string; remove(): void };

beforeAll(async () => {
  dir = tempDir();
  writeTree(dir.path);
  server = await startServer({ graphData: dir.path });
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

describe('service routes', () => {
  it('compiles every request and response schema of every route (each on first use when serving)', () => {
    // Validators and serializers of routes not asked yet are still pending; none may fail to compile.
    expect(compileAllSchemas()).toBeGreaterThan(50);
    expect(compileAllSchemas()).toBe(0);
  });
});
