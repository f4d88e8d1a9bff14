// The one pagination scheme of the admin lists: a page of at most `limit` items after an opaque
// `cursor`, and `nextCursor` while there is more. A cursor holds the sort key of the last item
// given (never an offset), so a write between two pages neither repeats an item nor skips one that
// was there all along; it names its list, so a cursor of another list is refused.
import { ApiError } from '../../errors.js';
import { DEFAULT_PAGE_LIMIT } from '../../pageLimits.js';

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

/** The items of one page and the cursor of the next page when there is one. */
export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
}

/** The page size asked for, or the default. */
export const limitOf = (q: PageRequest): number => q.limit ?? DEFAULT_PAGE_LIMIT;

/** The answer to a cursor this server did not give (for that list). */
export const badCursor = (): ApiError =>
  new ApiError('invalid_params', 'invalid client parameters: cursor is not one this server gave for this list');

type CursorKey = Array<string | number>;

export function encodeCursor(list: string, key: CursorKey): string {
  return Buffer.from(JSON.stringify([list, ...key])).toString('base64url');
}

/**
 * The key a cursor of `list` holds; a 400 naming the parameter for anything this server did not
 * give for that list. `shape` gives the type of each part of the key.
 */
export function decodeCursor<K extends CursorKey>(
  list: string,
  cursor: string,
  shape: { [I in keyof K]: K[I] extends number ? 'number' : 'string' },
): K {
  const refused = badCursor();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch (err) {
    if (err instanceof SyntaxError) throw refused;
    throw err;
  }
  if (!Array.isArray(decoded) || decoded[0] !== list || decoded.length !== shape.length + 1) throw refused;
  const key = decoded.slice(1) as unknown[];
  if (!key.every((k, i) => typeof k === shape[i])) throw refused;
  return key as K;
}

/** By binary search, the first index of a sorted array whose item passes a test that, once true, stays true. */
export function firstIndex<T>(sorted: readonly T[], passes: (item: T) => boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (passes(sorted[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * A page of `sorted` from index `start`: up to `limit` items that pass `keep`, each as `show` makes
 * it, with the cursor `nextCursor` makes from the last one when another item that passes follows.
 */
export function pageOf<T, U>(
  sorted: readonly T[],
  start: number,
  limit: number,
  show: (item: T) => U,
  nextCursor: (last: T) => string,
  keep: (item: T) => boolean = () => true,
): Page<U> {
  const items: U[] = [];
  let last: T | undefined;
  for (let i = start; i < sorted.length; i++) {
    const item = sorted[i]!;
    if (!keep(item)) continue;
    if (items.length === limit) return { items, nextCursor: nextCursor(last!) };
    items.push(show(item));
    last = item;
  }
  return { items, nextCursor: undefined };
}

/** A page of items serialized as JSON, as the object the API answers: `{"<field>": [...], "nextCursor": "..."}`. */
export function pageJson(field: string, page: Page<string>): string {
  const next = page.nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(page.nextCursor)}`;
  return `{${JSON.stringify(field)}:[${page.items.join(',')}]${next}}`;
}
