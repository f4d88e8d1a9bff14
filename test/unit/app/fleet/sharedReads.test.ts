// Reads shared between callers (src/app/fleet/sharedReads.ts): joined while under way, kept in
// proportion to their cost on the wall and the service's clock, forgotten on a write, and bounded.
import { describe, expect, it } from 'vitest';
import { MAX_UNDER_WAY, SharedReads } from '../../../../src/app/fleet/sharedReads.js';

const after = <T>(ms: number, value: T): Promise<T> => new Promise((r) => setTimeout(() => r(value), ms));
const clockAt = (t: { now: number }) => ({ now: () => t.now, sleep: async () => {} });

describe('SharedReads', () => {
  it('gives callers asking at once the one read under way', async () => {
    const shared = new SharedReads(clockAt({ now: 0 }));
    let reads = 0;
    const read = (): Promise<number> => after(5, ++reads);
    const answers = await Promise.all([shared.get('a', read), shared.get('a', read), shared.get('b', read)]);
    expect(answers).toEqual([1, 1, 2]);
  });

  it('hands an answer out again for ten times what it cost, and reads anew once that has passed', async () => {
    const shared = new SharedReads(clockAt({ now: 0 }));
    let reads = 0;
    expect(await shared.get('k', () => after(5, ++reads))).toBe(1);
    expect(await shared.get('k', () => after(5, ++reads))).toBe(1);
    await after(300, null); // well past ten times 5 ms
    expect(await shared.get('k', () => after(1, ++reads))).toBe(2);
  });

  it("reads anew once the service's clock moved past the time kept, and after forget()", async () => {
    const t = { now: 0 };
    const shared = new SharedReads(clockAt(t));
    let reads = 0;
    expect(await shared.get('k', () => after(30, ++reads))).toBe(1);
    t.now += 3_600_000;
    expect(await shared.get('k', () => after(30, ++reads))).toBe(2);
    const underWay = shared.get('k2', () => after(30, 'before the write'));
    shared.forget();
    expect(await shared.get('k', () => after(1, ++reads))).toBe(3);
    // A read that began before the write is not handed to a caller after it.
    expect(await shared.get('k2', async () => 'after the write')).toBe('after the write');
    expect(await underWay).toBe('before the write');
  });

  it('hands an expensive answer out after a write for what is left of a second from its start, and no longer', async () => {
    const shared = new SharedReads(clockAt({ now: 0 }));
    let reads = 0;
    const started = Date.now();
    expect(await shared.get('big', () => after(300, ++reads))).toBe(1);
    shared.forget();
    expect(await shared.get('big', () => after(1, ++reads))).toBe(1);
    await after(Math.max(0, started + 1_100 - Date.now()), null);
    shared.forget();
    expect(await shared.get('big', () => after(1, ++reads))).toBe(2);
  });

  it('joins a read under way for a quarter of a second after a write, and never in a layer without the grace', async () => {
    const graced = new SharedReads(clockAt({ now: 0 }));
    const strict = new SharedReads(clockAt({ now: 0 }), { writeGrace: false });
    for (const [shared, expected] of [
      [graced, 'the first'],
      [strict, 'after the write'],
    ] as const) {
      const first = shared.get('slow', () => after(600, 'the first'));
      await after(300, null);
      shared.forget();
      expect(await shared.get('slow', async () => 'after the write')).toBe(expected);
      await first;
    }
  });

  it('gives its slot back when a read throws at once', async () => {
    const shared = new SharedReads(clockAt({ now: 0 }));
    for (let i = 0; i < MAX_UNDER_WAY + 4; i++)
      await expect(
        shared.get(`bad${i}`, () => {
          throw new Error('at once');
        }),
      ).rejects.toThrow('at once');
    expect(await shared.get('good', async () => 'read')).toBe('read');
  });

  it('keeps 64 MB of answers at most: past that, the oldest is read again', async () => {
    const shared = new SharedReads(clockAt({ now: 0 }));
    let reads = 0;
    const big = (): Promise<Buffer> => after(10, Buffer.alloc(33 * 2 ** 20, ++reads));
    await shared.get('a', big);
    await shared.get('b', big);
    expect((await shared.get('b', big))[0]).toBe(2);
    expect((await shared.get('a', big))[0]).toBe(3);
  });

  it('forgets a failed read, so the next caller reads again', async () => {
    const shared = new SharedReads(clockAt({ now: 0 }));
    const failing = () => after(30, 0).then(() => Promise.reject(new Error('store down')));
    await expect(shared.get('x', failing)).rejects.toThrow('store down');
    expect(await shared.get('x', async () => 7)).toBe(7);
  });

  it(`refuses a read beyond ${MAX_UNDER_WAY} under way with a 503, and takes reads again once they end`, async () => {
    const shared = new SharedReads(clockAt({ now: 0 }));
    const running = Array.from({ length: MAX_UNDER_WAY }, (_, i) => shared.get(`k${i}`, () => after(20, i)));
    await expect(shared.get('more', async () => 'more')).rejects.toMatchObject({ statusCode: 503 });
    // A caller of a read under way still shares it.
    expect(await shared.get('k0', async () => -1)).toBe(0);
    await Promise.all(running);
    expect(await shared.get('more', async () => 'more')).toBe('more');
  });
});
