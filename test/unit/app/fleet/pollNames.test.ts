// The names a poll is recorded under (src/app/fleet/pollNames.ts): the graph's own, or one for all else.
import { describe, expect, it } from 'vitest';
import { polledNames } from '../../../../src/app/fleet/pollNames.js';
import { UNSERVED } from '../../../../src/schemas/fleet.js';
import { servedNames } from '../../../support/servedNames.js';

const served = servedNames(['stable-4.16'], ['amd64'], ['4.16.1']);

describe('polledNames', () => {
  it('keeps the names the graph serves', () => {
    expect(polledNames(served, 'stable-4.16', 'amd64', '4.16.1')).toEqual({
      channel: 'stable-4.16',
      arch: 'amd64',
      version: '4.16.1',
    });
  });

  it('records every other channel, arch and well-formed version as one name', () => {
    expect(polledNames(served, 'stable-4.17', 'arm64', '4.16.2')).toEqual({
      channel: UNSERVED,
      arch: UNSERVED,
      version: UNSERVED,
    });
    expect(polledNames(served, 'x'.repeat(15_000), 'y'.repeat(4000), '4.99.0+junk').channel).toBe(UNSERVED);
  });

  it('leaves a version no poll may name (or none) as it came, for the recorder to count', () => {
    for (const version of [undefined, '', '4.16.1; DROP TABLE', '9'.repeat(80), ['4.16.1', '4.16.2']])
      expect(polledNames(served, 'stable-4.16', 'amd64', version).version).toBe(version);
  });
});
