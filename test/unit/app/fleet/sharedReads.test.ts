import { describe, expect, it } from 'vitest';
import { MAX_UNDER_WAY, SharedReads } from '../../../../src/app/fleet/sharedReads.js';

const after = <T>(ms: number, value: T): Promise<T> => new Promise((r) => setTimeout(() => r(value), ms));

describe('SharedReads', () => {
  it('gives callers asking at once the one read under way', async () => {
    const shared = new SharedReads();
    let reads = 0;
    const read = (): Promise<number> => after(5, ++reads);
    const answers = await Promise.all([shared.get('a', read), shared.get('a', read), shared.get('b', read)]);
    expect(answers).toEqual([1, 1, 2]);
  });

  it('hands a costly answer out again, and reads a cheap one anew each time', async () => {
    const shared = new SharedReads();
    let costly = 0;
    expect(await shared.get('costly', () => after(40, ++costly))).toBe(1);
    expect(await shared.get('costly', () => after(40, ++costly))).toBe(1);
    let cheap = 0;
    expect(await shared.get('cheap', async () => ++cheap)).toBe(1);
    expect(await shared.get('cheap', async () => ++cheap)).toBe(2);
  });

  it('forgets a failed read, so the next caller reads again', async () => {
    const shared = new SharedReads();
    await expect(
      shared.get('x', () => after(30, 0).then(() => Promise.reject(new Error('store down')))),
    ).rejects.toThrow('store down');
    expect(await shared.get('x', async () => 7)).toBe(7);
  });

  it(`refuses a read beyond ${MAX_UNDER_WAY} under way with a 503, and takes reads again once they end`, async () => {
    const shared = new SharedReads();
    const running = Array.from({ length: MAX_UNDER_WAY }, (_, i) => shared.get(`k${i}`, () => after(20, i)));
    await expect(shared.once(async () => 'more')).rejects.toMatchObject({ statusCode: 503 });
    // A caller of a read under way still shares it.
    expect(await shared.get('k0', async () => -1)).toBe(0);
    await Promise.all(running);
    expect(await shared.once(async () => 'more')).toBe('more');
  });
});
