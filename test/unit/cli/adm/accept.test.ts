// `adm upgrade accept` on plain values: what oc adm upgrade accept refuses, and the list it leaves.
import { describe, expect, it } from 'vitest';
import { acceptedAfter, parseAcceptArgs } from '../../../../src/cli/adm/accept.js';

const after = (existing: string[], args: string[], o: { replace?: boolean; clear?: boolean } = {}): string[] => {
  const { add, remove } = parseAcceptArgs(args, o);
  return acceptedAfter(existing, o, add, remove);
};

describe('adm upgrade accept', () => {
  it('refuses what oc refuses, with its words', () => {
    expect(() => parseAcceptArgs([], {})).toThrow('no positional arguments given');
    expect(() => parseAcceptArgs(['A'], { clear: true, replace: true })).toThrow(
      '--clear and --replace are mutually exclusive',
    );
    expect(() => parseAcceptArgs(['A'], { clear: true })).toThrow('unknown command "A"');
    expect(() => parseAcceptArgs(['A', 'B'], {})).toThrow('multiple positional arguments given');
    expect(() => parseAcceptArgs(['A,,B'], {})).toThrow('illegal risk ""');
    expect(() => parseAcceptArgs(['A,-'], {})).toThrow('illegal risk "-"');
    expect(() => parseAcceptArgs(['B,A,-A,-B'], {})).toThrow('requested risks with both Risk and -Risk: A,B');
    expect(() => parseAcceptArgs(['A,-B'], { replace: true })).toThrow(
      "The prefix '-' on risks is not allowed if --replace is specified",
    );
  });

  it('appends new names in name order after those kept, removes -NAME, replaces and clears', () => {
    expect(after(['Z', 'M'], ['C,A, B ,M'])).toEqual(['Z', 'M', 'A', 'B', 'C']);
    expect(after(['Z', 'M'], ['-Z,-Unknown'])).toEqual(['M']);
    expect(after(['Z', 'M'], ['B,A'], { replace: true })).toEqual(['A', 'B']);
    expect(after(['Z', 'M'], [], { clear: true })).toEqual([]);
  });
});
