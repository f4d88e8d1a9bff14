// The turns writes and transactions take (src/store/turns.ts): plain values, no database. What a replica
// does about each generation of the store it learns of is in generations.test.ts.
import { describe, expect, it } from 'vitest';
import { Turns } from '../../../src/store/turns.js';

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
