// Texts for comparing YAML readers: every YAML file of the real graph-data trees in ../shared/conformance and
// of the bundled demo tree, and seeded mutants of them (a few YAML-significant insertions, deletions,
// truncations and repeated lines each), which reach the corners of the syntax real files never do.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE_DIR } from './conformance.js';

/** What a reader made of a text: its value, or why it refused it. */
export type Read = { value: unknown } | { refused: string };

/** What `read` makes of `text`, a thrown error taken as its refusal. */
export function readOrRefusal(read: (text: string) => unknown, text: string): Read {
  try {
    return { value: read(text) };
  } catch (err) {
    return { refused: (err as Error).message };
  }
}

const BUNDLED = join(import.meta.dirname, '..', '..', 'graph-data');

/** Pieces a mutation inserts: indicators, whitespace, scalar styles, tags, anchors, directives. */
const PIECES = [
  ...[':', '-', '#', "'", '"', '|', '>', ' ', '\t', '\n', '[', ']', '{', '}', ',', '?', '!', '%', '@', '`'],
  ...['&', '*', '\\', '~', '.', '+', '2', 'a', '|-', '>+', '  ', '- ', ': ', '\n  ', '\n- ', '"\\', 'null'],
  ...['<<', '!!str ', '!!int ', '!foo ', '%YAML 1.1\n---\n', '---\n', '...\n', '"\\u00e9"', '"\\L"'],
  ...['"a\\\n b"', "'a''b'", '\u00a0', 'é', '{a: b}', '[a, b]', '? ', ' #', '\n#', '- - ', '~: ', 'null: '],
  ...[': |\n  x\n', ': >-\n  x\n\n  y\n', '|2\n', '>1\n', '&x ', '*x', '&x a\n', '\nk: *x\n'],
  ...['>\n  a\n   b\n\n  c\n', '|+\n  a\n\n', 'k: "a\n  b\n\n  c"\n', "k: 'a\n\n b'\n", 'k: a\n  b\n  c\n'],
  ...['{a: [b, c], d: e}', '[a, {b: c}]', '\n    ', 'k: |\n\n  x\n', '"\\t"', '"\\x41"', '"\\U0001F600"'],
  ...['"\\N\\_"', '#c\n', 'k: v #c\n', 'a:b\n', 'http://x:80/', '- -1\n', '-\n', '- \n'],
];

function yamlFilesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yamlFilesUnder(path, out);
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}

/** The YAML files of the real trees (when ../shared/conformance is there) and of the bundled one, by path. */
export function realYamlFiles(): Array<{ path: string; text: string }> {
  const roots = [BUNDLED];
  try {
    if (statSync(CONFORMANCE_DIR).isDirectory()) roots.push(CONFORMANCE_DIR);
  } catch {
    // no conformance fixtures: the bundled tree alone
  }
  return roots.flatMap((root) => yamlFilesUnder(root)).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

/** A small seeded generator (mulberry32): the same seed gives the same mutants on every machine. */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` mutants of the texts, each cut to about 1,500 characters first, made from `seed`. */
export function yamlMutants(texts: string[], count: number, seed: number): string[] {
  const random = generator(seed);
  const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)]!;
  const mutants: string[] = [];
  for (let i = 0; i < count; i++) {
    let t = pick(texts);
    if (t.length > 1500) t = t.slice(0, 1500) + '\n';
    for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
      const at = Math.floor(random() * (t.length + 1));
      const kind = random();
      if (kind < 0.5) t = t.slice(0, at) + pick(PIECES) + t.slice(at);
      else if (kind < 0.8) t = t.slice(0, at) + t.slice(at + 1 + Math.floor(random() * 3));
      else if (kind < 0.85) t = t.slice(0, at);
      else {
        const lines = t.split('\n');
        lines.splice(Math.floor(random() * lines.length), 0, pick(lines));
        t = lines.join('\n');
      }
    }
    mutants.push(t);
  }
  return mutants;
}
