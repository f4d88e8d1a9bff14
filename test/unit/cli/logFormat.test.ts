// The log as a person reads it on a terminal (src/cli/logFormat.ts).
import { describe, expect, it } from 'vitest';
import { logDestination, textLine } from '../../../src/cli/logFormat.js';

describe('log format', () => {
  it('writes a record as time, level, message and key=value, quoting what is not a plain word', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.parse('2026-11-28T09:30:01.250Z'),
      pid: 1,
      hostname: 'h',
      msg: 'the store is empty',
      db: './data/cincy.db',
      problems: ['a b'],
    });
    expect(textLine(line)).toBe('09:30:01.250 WARN  the store is empty db=./data/cincy.db problems=["a b"]');
    expect(textLine('not json')).toBe('not json');
  });

  it('is JSON where the output is not a terminal, unless text is asked for', () => {
    const pipe = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;
    const tty = { isTTY: true, write: () => true } as unknown as NodeJS.WriteStream;
    expect(logDestination('auto', pipe)).toBe(pipe);
    expect(logDestination('json', tty)).toBe(tty);
    expect(logDestination('auto', tty)).not.toBe(tty);
    expect(logDestination('text', pipe)).not.toBe(pipe);
  });
});
