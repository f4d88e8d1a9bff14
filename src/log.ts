// The log every long-running part writes to: pino's shape (an object of fields, then the message), so
// `serve` hands its pino logger down and tests hand a silent one. A part that writes only some levels
// takes Pick<Log, …>.
export interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
