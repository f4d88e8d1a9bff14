// Route schemas compiled on first use (src/server/lazyCompile.ts): every request and response schema of
// every route of a built app compiles, so a schema that does not fails here, not only at the first
// request that needs it.
import { describe, expect, it } from 'vitest';
import { compileAllSchemas } from '../../support/server.js';
import { useTreeServer } from '../../support/treeServer.js';

useTreeServer(); // a built app, whose routes' schemas wait to be compiled

describe('service routes', () => {
  it('compiles every request and response schema of every route (each on first use when serving)', () => {
    // Validators and serializers of routes not asked yet are still pending; none may fail to compile.
    expect(compileAllSchemas()).toBeGreaterThan(50);
    expect(compileAllSchemas()).toBe(0);
  });
});
