// When serve serves the bundled demo: asked for, or implied by an in-memory store with no source.
import { describe, expect, it } from 'vitest';
import { resolveServeConfig } from '../../src/config.js';
import { BUNDLED_GRAPH_DATA, demoWanted } from '../../src/settings.js';

describe('the demo setting', () => {
  it('--demo asks for it, on the flag or in CINCY_DEMO', () => {
    expect(demoWanted({ demo: true }, {})).toBe(true);
    expect(demoWanted({}, { CINCY_DEMO: '1' })).toBe(true);
    expect(resolveServeConfig({ demo: true }, {})).toMatchObject({
      db: './data/demo.db',
      graphData: BUNDLED_GRAPH_DATA,
    });
  });

  it('an in-memory store with no source serves the demo; with a source, a file or CINCY_DEMO=false it does not', () => {
    expect(demoWanted({ db: ':memory:' }, {})).toBe(true);
    expect(resolveServeConfig({ db: ':memory:' }, {})).toMatchObject({
      demo: true,
      db: ':memory:',
      graphData: BUNDLED_GRAPH_DATA,
    });
    expect(demoWanted({}, { CINCY_DB: ':memory:' })).toBe(true);
    expect(demoWanted({ db: ':memory:', graphData: '/trees/real' }, {})).toBe(false);
    expect(demoWanted({ db: ':memory:' }, { CINCY_RELEASES: 'mirror.example/ocp/release' })).toBe(false);
    expect(demoWanted({ db: ':memory:', graphDataImage: 'mirror.example/graph:latest' }, {})).toBe(false);
    expect(demoWanted({ db: ':memory:' }, { CINCY_DEMO: 'false' })).toBe(false);
    expect(demoWanted({}, {})).toBe(false);
    expect(demoWanted({ db: '/var/lib/cincy/cincy.db' }, {})).toBe(false);
    expect(resolveServeConfig({ db: ':memory:' }, { CINCY_DEMO: 'false' }).graphData).toBeUndefined();
  });
});
