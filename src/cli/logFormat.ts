// Where and how `serve` and `agent` write their log: JSON lines (pino's own), or on a terminal one line a
// record a person reads — the time, the level, the message, then the other fields as key=value, values
// that are not plain words as JSON. `--log-format auto` (the default) is text on a terminal, JSON otherwise.
import { Writable } from 'node:stream';

export const LOG_FORMATS = ['auto', 'json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every record has, shown in their place or not at all. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One JSON log record as a line of text (a line that is not a record is passed as it is). */
export function textLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const level = (LEVELS[record.level as number] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([k]) => !OMITTED.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && /^[\w./:@-]+$/.test(v) ? v : JSON.stringify(v)}`);
  return [time, level, String(record.msg ?? ''), ...fields].filter(Boolean).join(' ');
}

/** The stream pino writes to: standard output as it is, or through textLine. */
export function logDestination(format: LogFormat, out: NodeJS.WriteStream = process.stdout): NodeJS.WritableStream {
  const text = format === 'text' || (format === 'auto' && out.isTTY === true);
  if (!text) return out;
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      out.write(lines.map((l) => `${textLine(l)}\n`).join(''));
      done();
    },
  });
}
