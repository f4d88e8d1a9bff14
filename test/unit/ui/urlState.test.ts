// The web page's pure parts, in the fast tier: its URL state (src/ui/urlState.ts). Its layout is in
// layout.test.ts, its channel order in channels.test.ts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_STATE, parseState, stateQuery } from '../../../src/ui/urlState.js';

describe('URL state', () => {
  it('round-trips every field and leaves defaults out', () => {
    const state = {
      arch: 'arm64',
      channel: 'stable-4.16',
      version: '4.16.3',
      allEdges: true,
      tab: 'path' as const,
      from: '4.15.0',
      to: '4.16.22',
      mode: 'eus' as const,
      accept: 'RiskA,RiskB',
      whyFrom: '4.16.3',
      whyTo: '4.16.1',
    };
    expect(parseState(stateQuery(state))).toEqual(state);
    expect(stateQuery(DEFAULT_STATE)).toBe('');
    expect(stateQuery({ ...DEFAULT_STATE, channel: 'fast-4.16' })).toBe('?channel=fast-4.16');
  });

  it('reads odd or hostile values as defaults, bounded in length', () => {
    const s = parseState(`?tab=<script>&mode=fastest&edges=yes&version=${'9'.repeat(5000)}`);
    expect(s.tab).toBe('version');
    expect(s.mode).toBe('fewest-hops');
    expect(s.allEdges).toBe(false);
    expect(s.version).toHaveLength(200);
  });
});
