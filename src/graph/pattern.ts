// `from` patterns of blocked edges, evaluated with RE2 semantics (linear time, like the reference's
// Rust regex crate), so a pathological pattern from a graph-data tree or the admin API cannot hang us.
import { RE2JS } from 're2js';

export interface Pattern {
  source: string;
  /** Unanchored search, like Python's re.search. */
  test(text: string): boolean;
  /** A match that starts at the beginning of the text, like Python's re.match (feeder filters). */
  matchesStart(text: string): boolean;
}

const cache = new Map<string, Pattern>();

/** Compiles a pattern or throws an Error whose message says what is wrong with it. */
export function compilePattern(source: string): Pattern {
  let pattern = cache.get(source);
  if (pattern) return pattern;
  const re = RE2JS.compile(source);
  pattern = { source, test: (text) => re.test(text), matchesStart: (text) => re.matcher(text).lookingAt() };
  if (cache.size > 10_000) cache.clear();
  cache.set(source, pattern);
  return pattern;
}

/** The reason a pattern does not compile, or undefined when it does. */
export function patternError(source: string): string | undefined {
  try {
    compilePattern(source);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
