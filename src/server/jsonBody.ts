// The parser of JSON request bodies, in place of fastify's. One linear pass over the text first
// refuses, with a 400 naming where, what JSON.parse would take without a word or what later code
// could not handle: a key written twice in one object (JSON.parse keeps the last value; a tree's YAML
// refuses it), a `__proto__` key (an object built from the body could take it for its prototype),
// and nesting deeper than MAX_DEPTH (code that walks a value recursively would overflow the stack).
// Then fastify's own parser reads the text, as before.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

/** The deepest a request body may nest objects and arrays; real bodies nest four or five levels. */
export const MAX_DEPTH = 64;

/** Replaces the application/json parser of `app`. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const problem = structureProblem(body as string);
    if (problem) done(new ApiError('invalid_request', problem), undefined);
    else parse(request, body as string, done);
  });
}

const [QUOTE, BACKSLASH, COMMA] = [0x22, 0x5c, 0x2c];
const [OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = [0x7b, 0x7d, 0x5b, 0x5d];

/** An object being read: the keys seen so far, and whether a key comes next. */
interface ObjectFrame {
  keys: Set<string>;
  key: string | undefined;
  expectingKey: boolean;
}
/** An array being read: the index of its current item. */
interface ArrayFrame {
  index: number;
}
type Frame = ObjectFrame | ArrayFrame;

/**
 * What is wrong with the structure of a JSON text, or undefined. Text that is not JSON at all is
 * left for the parser to refuse. Linear: each character is looked at once, each key decoded once.
 */
export function structureProblem(text: string): string | undefined {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (top && 'keys' in top && top.expectingKey) {
        const key = keyAt(text, i, end);
        if (key === undefined) return undefined;
        if (key === '__proto__') return `${pathOf(stack)}.__proto__: reserved: __proto__ cannot be a key`;
        if (top.keys.has(key)) return `${pathOf(stack)}: duplicate key '${key}'`;
        top.keys.add(key);
        top.key = key;
        top.expectingKey = false;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (stack.length === MAX_DEPTH) return `body: nested deeper than ${MAX_DEPTH} levels`;
      stack.push(c === OPEN_BRACE ? { keys: new Set(), key: undefined, expectingKey: true } : { index: 0 });
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      stack.pop();
    } else if (c === COMMA && top) {
      if ('keys' in top) top.expectingKey = true;
      else top.index += 1;
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opening at `start`, or -1 if none does. */
function stringEnd(text: string, start: number): number {
  let end = start;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    // Escaped when an odd number of backslashes precede it; each backslash is counted once, as the
    // count stops at the quote before.
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
}

/** The key written from `start` to `end` (its quotes), escapes decoded; undefined if it is not a JSON string. */
function keyAt(text: string, start: number, end: number): string | undefined {
  const raw = text.slice(start, end + 1);
  if (!raw.includes('\\')) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}

/** Where the reader is, in the form the other 400s name a field: body.feeder.delay, body[1].version. */
function pathOf(stack: Frame[]): string {
  let path = 'body';
  for (const frame of stack.slice(0, -1)) {
    path += 'keys' in frame ? `.${frame.key}` : `[${frame.index}]`;
  }
  return path;
}
