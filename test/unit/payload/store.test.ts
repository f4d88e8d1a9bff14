// Release payloads: the store (src/payload/store.ts), keyed by image digest. loadPayload's refusals are
// tested in load.test.ts, the task graph in taskGraph.test.ts, the simulator's generated payload in
// simulator/test/unit/payloads/generate.test.ts.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatePayload } from '@cincy/simulator/payloads/generate';
import { loadPayload } from '../../../src/payload/load.js';
import { PayloadStore } from '../../../src/payload/store.js';
import { useCleanup } from '../../support/cleanup.js';

const cleanup = useCleanup();
const HEX = createHash('sha256').update('release 4.16.5').digest('hex');
const IMAGE = `quay.example.com/ocp/release@sha256:${HEX}`;

describe('PayloadStore', () => {
  it('keys payloads by image digest and replaces one whole', () => {
    const store = new PayloadStore(cleanup.dir());
    expect(store.digestOf(IMAGE)).toBe(`sha256:${HEX}`);
    expect(store.pathOf(IMAGE)).toBe(join(store.dir, 'sha256', HEX, 'release-manifests'));
    for (const tagged of ['quay.example.com/ocp/release:4.16.5', 'quay.example.com/ocp/release@sha256:abc']) {
      expect(() => store.digestOf(tagged)).toThrow(`${tagged}: a release image must be pinned by digest`);
      expect(store.has(tagged)).toBe(false);
    }
    expect(store.has(IMAGE)).toBe(false);
    store.write(IMAGE, generatePayload({ version: '4.16.5', image: IMAGE }));
    expect(store.has(IMAGE)).toBe(true);
    store.write(IMAGE, generatePayload({ version: '4.16.6', image: IMAGE }));
    expect(loadPayload(store.pathOf(IMAGE)).version).toBe('4.16.6');
    expect(readdirSync(join(store.dir, 'sha256'))).toEqual([HEX]); // no staging or old copy left behind
    expect(() => store.write(IMAGE, new Map([['../escape.yaml', '']]))).toThrow(
      '../escape.yaml: not a plain file name',
    );
  });
});
