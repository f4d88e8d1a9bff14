// `cincy payload create`, `ls` and `extract` as a shell runs them: a payload made, listed and extracted.
// The simulator's own checks of `payload create` are in simulator/test/e2e/payload-create.test.ts.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPayload } from '../../src/payload/load.js';
import { PayloadStore } from '../../src/payload/store.js';
import { cincy, useCleanup } from '../support/cli.js';

const cleanup = useCleanup();
const HEX = createHash('sha256').update('release 4.16.5').digest('hex');
const IMAGE = `quay.example.com/ocp/release@sha256:${HEX}`;

describe('cincy payload', () => {
  it('creates, lists and extracts payloads', () => {
    const store = cleanup.dir();
    const created = cincy([
      'payload',
      'create',
      '--version',
      '4.16.5',
      '--image',
      IMAGE,
      '--previous',
      '4.16.4,4.16.3',
      '--store',
      store,
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`wrote 4.16.5 (${IMAGE}) to ${join(store, 'sha256', HEX, 'release-manifests')}`);
    expect(created.stdout).toMatch(/\d{3} manifests, 33 cluster operators, 1\d runlevels: 0, 3, 5, /);
    expect(loadPayload(new PayloadStore(store).pathOf(IMAGE)).metadata.previous).toEqual(['4.16.3', '4.16.4']);

    const ls = cincy(['payload', 'ls'], { CINCY_PAYLOAD_STORE: store });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(
      new RegExp(`^DIGEST +VERSION +MANIFESTS +OPERATORS +RUNLEVELS\\nsha256:${HEX} +4\\.16\\.5 +\\d+ +33 +\\d+\\n$`),
    );

    const to = join(cleanup.dir(), 'manifests');
    const extracted = cincy(['payload', 'extract', IMAGE, '--to', to, '--store', store]);
    expect(extracted.code, extracted.stderr).toBe(0);
    expect(readdirSync(to).sort()).toEqual(readdirSync(new PayloadStore(store).pathOf(IMAGE)).sort());
    expect(JSON.parse(readFileSync(join(to, 'release-metadata'), 'utf8'))).toMatchObject({ version: '4.16.5' });

    const missing = cincy(['payload', 'extract', IMAGE.replace(HEX, 'f'.repeat(64)), '--to', to, '--store', store]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('not in the payload store');
  });
});
