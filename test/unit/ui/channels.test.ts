// The web page's pure parts, in the fast tier: the order of its channels (src/ui/channels.ts). Its URL
// state is in urlState.test.ts, its layout in layout.test.ts.
import { describe, expect, it } from 'vitest';
import { compareChannels, newestStable } from '../../../src/ui/channels.js';

describe('channel order on the page', () => {
  it('by the minor a channel tracks, as numbers, then by name; the newest stable opens first', () => {
    const names = ['stable-4.16', 'stable-4.9', 'eus-4.10', 'candidate-4.16', 'stable-4.10', 'odd'];
    expect([...names].sort(compareChannels)).toEqual([
      'odd',
      'stable-4.9',
      'eus-4.10',
      'stable-4.10',
      'candidate-4.16',
      'stable-4.16',
    ]);
    expect(newestStable(names)).toBe('stable-4.16');
    expect(newestStable(['fast-4.9', 'candidate-4.12'])).toBe('candidate-4.12');
  });
});
