// "Did you mean": which known name a mistyped channel is taken for, and when none is.
import { describe, expect, it } from 'vitest';
import { closestName, didYouMean, editDistance } from '../../../src/graph/closestName.js';

const CHANNELS = ['stable-4.16', 'fast-4.16', 'candidate-4.16', 'eus-4.16', 'stable-4.15', 'stable-4.17'];

describe('closest name', () => {
  it('counts a swap of neighbours as one edit, and ignores case', () => {
    expect(editDistance('stabel', 'stable')).toBe(1);
    expect(editDistance('Stable-4.16', 'stable-4.16')).toBe(0);
    expect(editDistance('abc', 'xyz')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it.each([
    ['stabel-4.16', 'stable-4.16'],
    ['stable-416', 'stable-4.16'],
    ['Stable-4.16', 'stable-4.16'],
    ['candiate-4.16', 'candidate-4.16'],
    ['fast-4.61', 'fast-4.16'],
    ['eus4.16', 'eus-4.16'],
  ])('%s: did you mean %s', (typed, meant) => {
    expect(closestName(typed, CHANNELS)).toBe(meant);
    expect(didYouMean(typed, CHANNELS)).toBe(`: did you mean ${meant}?`);
  });

  it('suggests nothing far off, nothing for a name that exists, and nothing for a short name', () => {
    expect(closestName('nightly-4.16', CHANNELS)).toBeUndefined();
    expect(closestName('stable-4.16', CHANNELS)).toBeUndefined();
    expect(closestName('eu', ['eus'])).toBeUndefined();
    expect(didYouMean('stable-5.0', CHANNELS)).toBe('');
  });

  it('offers no other version: a name with other digits is another channel, not a typo', () => {
    expect(closestName('stable-4.18', CHANNELS)).toBeUndefined();
    expect(closestName('stable-9.9', ['stable-4.2'])).toBeUndefined();
  });

  it('takes the nearest of several, the first of equals', () => {
    expect(closestName('stabl-4.16', ['stable-4.16', 'stabl-4.61x'])).toBe('stable-4.16');
    expect(closestName('fest-4.16', ['fast-4.16', 'fist-4.16'])).toBe('fast-4.16');
  });
});
