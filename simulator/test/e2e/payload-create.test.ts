// `cincy payload create`, the simulator's command that writes a demo payload to a payload store: the flags
// it refuses, and the payload of a release a cincy server holds. Making, listing and extracting one is in
// test/e2e/payload-commands.test.ts.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPayload } from 'cincy/payload/load';
import { PayloadStore } from 'cincy/payload/store';
import { cincy, cincyAsync, serveCli, useCleanup } from '../../../test/support/cli.js';
import { release, writeTree } from '../../../test/support/trees.js';

const cleanup = useCleanup();
const HEX = createHash('sha256').update('release 4.16.5').digest('hex');
const IMAGE = `quay.example.com/ocp/release@sha256:${HEX}`;

describe('cincy payload', () => {
  it('refuses flags it cannot use, naming them', () => {
    const store = cleanup.dir();
    const cases: Array<[string[], string]> = [
      [
        ['--version', '4.16.5', '--image', 'quay.example.com/ocp/release:4.16.5'],
        '--image: quay.example.com/ocp/release:4.16.5: a release image must be pinned by digest',
      ],
      [['--version', '4.16', '--image', IMAGE], '--version: 4.16 is not a semantic version'],
      [['--version', '4.16.5'], '--image: required'],
      [
        ['--version', '4.16.5', '--image', IMAGE, '--previous', '4.16.4,nope'],
        '--previous: nope is not a semantic version',
      ],
    ];
    for (const [args, message] of cases) {
      const r = cincy(['payload', 'create', ...args, '--store', store]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(message);
    }
    expect(existsSync(join(store, 'sha256'))).toBe(false);
  });

  it('creates the payload of a release a cincy server holds', async () => {
    const tree = writeTree(join(cleanup.dir(), 'tree'), {
      'releases/amd64/4.16.5.json': release('4.16.5', {
        previous: ['4.16.4'],
        metadata: { url: 'https://errata.example/RHBA-1' },
        payload: IMAGE,
      }),
    });
    const served = await serveCli(['--db', ':memory:', '--graph-data', tree], cleanup);
    const store = cleanup.dir();
    const r = await cincyAsync(['payload', 'create', '--release', '4.16.5', '--server', served.url, '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    const p = loadPayload(new PayloadStore(store).pathOf(IMAGE));
    expect(p.metadata).toEqual({
      kind: 'cincinnati-metadata-v0',
      version: '4.16.5',
      previous: ['4.16.4'],
      metadata: { url: 'https://errata.example/RHBA-1' },
    });
    const unknown = await cincyAsync([
      'payload',
      'create',
      '--release',
      '4.16.9',
      '--server',
      served.url,
      '--store',
      store,
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--release: ');
    expect(unknown.stderr).toContain('no release 4.16.9 for amd64');
  });
});
