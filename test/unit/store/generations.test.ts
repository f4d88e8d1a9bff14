// What a replica does about each generation of the store it learns of (src/store/generations.ts), and
// the turns writes and transactions take (src/store/turns.ts): plain values, no database.
import { describe, expect, it } from 'vitest';
import { Generations } from '../../../src/store/generations.js';
import { Turns } from '../../../src/store/turns.js';

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

describe('turns', () => {
  const later = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  it('runs one at a time, in the order asked', async () => {
    const turns = new Turns();
    const log: string[] = [];
    const job = (name: string, ms: number) => async () => {
      log.push(`${name} begins`);
      await later(ms);
      log.push(`${name} ends`);
      return name;
    };
    const results = await Promise.all([turns.run(job('a', 30)), turns.run(job('b', 1)), turns.run(job('c', 1))]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a begins', 'a ends', 'b begins', 'b ends', 'c begins', 'c ends']);
  });

  it('gives up on a turn that does not come in time, without ever running it, and goes on with the next', async () => {
    const turns = new Turns();
    let ran = false;
    const slow = turns.run(() => later(200));
    const late = turns.run(
      async () => {
        ran = true;
      },
      20,
      () => new Error('busy'),
    );
    await expect(late).rejects.toThrow('busy');
    await slow;
    expect(ran).toBe(false);
    expect(await turns.run(async () => 'next', 50)).toBe('next');
  });

  it('a turn that has begun is waited for, however long it takes', async () => {
    const turns = new Turns();
    expect(await turns.run(() => later(60).then(() => 'done'), 10)).toBe('done');
  });

  it('a failed turn does not stop the next', async () => {
    const turns = new Turns();
    await expect(turns.run(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await turns.run(async () => 'yes')).toBe('yes');
  });
});
