// The catalog the server gives the web page (src/graph/catalog.ts): each public channel's releases per
// arch. The page's own pure parts are in test/unit/ui/.
import { describe, expect, it } from 'vitest';
import { catalogOf } from '../../../src/graph/catalog.js';
import { buildGraph } from '../../../src/graph/build.js';
import { rel } from '../../support/releases.js';

describe('catalog', () => {
  it("counts each public channel's releases per arch, in channel order", () => {
    const graph = buildGraph({
      releases: [rel('4.1.0'), rel('4.1.1', ['4.1.0']), rel('4.1.1', [], { arch: 'arm64' })],
      channels: [
        { name: 'stable-4.1', internal: false, versions: ['4.1.0', '4.1.1'], tombstones: [] },
        { name: 'candidate-4.1', internal: false, versions: ['4.1.1'], tombstones: [] },
        { name: 'empty-4.2', internal: false, versions: [], tombstones: [] },
      ],
      blockedEdges: [],
      rawMetadata: {},
    });
    expect(catalogOf(graph, ['stable-4.1', 'candidate-4.1', 'empty-4.2'])).toEqual({
      arches: ['amd64', 'arm64'],
      channels: [
        { name: 'candidate-4.1', releases: { amd64: 1, arm64: 1 } },
        { name: 'stable-4.1', releases: { amd64: 2, arm64: 1 } },
        { name: 'empty-4.2', releases: {} },
      ],
    });
  });
});
