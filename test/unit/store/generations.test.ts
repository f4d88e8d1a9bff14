// What a replica does about each generation of the store it learns of (src/store/generations.ts): plain
// values, no database. The turns writes and transactions take are in turns.test.ts.
import { describe, expect, it } from 'vitest';
import { Generations } from '../../../src/store/generations.js';

describe('generations', () => {
  it("takes another replica's next write with its notice, and its own writes as nothing to do", () => {
    const g = new Generations(4);
    expect(g.notified(5, 'a')).toEqual({ notice: 'a' });
    g.committing(6);
    expect(g.notified(6, 'mine')).toBeUndefined();
    expect(g.notified(6, 'again')).toBeUndefined(); // an old generation
    expect(g.notified(7, undefined)).toEqual({ notice: undefined });
  });

  it('builds everything after a missed write of another, but not for a gap of its own writes', () => {
    const g = new Generations(10);
    expect(g.notified(12, 'b')).toEqual({ notice: undefined }); // 11 was never heard of
    g.committing(13);
    expect(g.notified(14, 'c')).toEqual({ notice: 'c' }); // 13 is its own: nothing was missed
  });

  it("never lets its own write hide another's committed just before (the write of one replica, then another's)", () => {
    // Another replica commits 5; before its notification arrives, this one commits 6.
    const g = new Generations(4);
    g.committing(6);
    expect(g.checked(6)).toEqual({ notice: undefined }); // the check sees 6: 5 is another's
    const h = new Generations(4);
    h.committing(6);
    expect(h.notified(5, 'theirs')).toEqual({ notice: 'theirs' });
    expect(h.notified(6, 'mine')).toBeUndefined();
    const lost = new Generations(4);
    lost.committing(6);
    expect(lost.notified(6, 'mine')).toEqual({ notice: undefined }); // 5's notification was lost
  });

  it('a check that sees only its own writes asks for nothing; one that sees another asks for everything', () => {
    const g = new Generations(0);
    g.committing(1);
    g.committing(2);
    expect(g.checked(2)).toBeUndefined();
    expect(g.notified(2, 'late')).toBeUndefined();
    expect(g.checked(3)).toEqual({ notice: undefined });
    expect(g.checked(3)).toBeUndefined();
  });

  it("a write that may not have committed is taken as another's when it turns out it did", () => {
    const g = new Generations(0);
    g.committing(1);
    g.failed(1); // the connection was lost during the commit
    expect(g.notified(1, 'scoped')).toEqual({ notice: 'scoped' });
  });
});
