// The quick reader of graph-data YAML: js-yaml, about ten times faster than the yaml package on the real
// tree's 1,070 blocked-edge files (80 against 750 ms of a start on an empty store), tried first by
// parseYamlValues (yamlValues.ts). It answers only where it reads a file as the exact reader there does,
// and gives way otherwise: the exact reader (the yaml package, corrected to read as libyaml does) then
// reads the file, so every refusal and its message stay the exact reader's.
//
// It gives way:
// - when js-yaml throws, whatever the reason;
// - when the file defines an anchor, so that aliases are measured by the exact reader's expansion bound;
// - before parsing, on the shapes where js-yaml was found to read otherwise than libyaml or the exact
//   reader (DECLINED below). Each was found by reading thousands of mutated real graph-data files with
//   js-yaml, the exact reader and libyaml 0.2.5 itself (test/service/sources/yamlQuick.libyaml.test.ts).
//   The checks look at the text, not at tokens, so they also give way on some files that would have
//   read the same; that costs time, never a different value. Each takes time linear in the text: no
//   quantifier may start again at every character of a run it spans (a check that did took hours on a
//   1 MiB line of spaces, found by review); test/unit/sources/yamlQuick.test.ts reads such files.
//
// Scalars resolve as in the exact reader: every scalar is its text, and the null forms (an empty value,
// ~, null, Null, NULL) are null. js-yaml's failsafe schema knows no other implicit type, and an
// explicit tag it does not know makes it throw.
import { FAILSAFE_SCHEMA, load, Type, type State } from '#js-yaml';

/** The null forms of the exact reader (the core schema's): an empty scalar, ~, null, Null and NULL. */
const NULL_FORMS = new Set(['', '~', 'null', 'Null', 'NULL']);
const NULL = new Type('tag:yaml.org,2002:null', {
  kind: 'scalar',
  resolve: (text: string | null) => text === null || NULL_FORMS.has(text),
  construct: () => null,
});
const SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: [NULL] });

/** Shapes of text on which the quick reader gives way to the exact reader. */
const DECLINED: ReadonlyArray<{ shape: RegExp; why: string }> = [
  { shape: /[^\n]$/, why: 'no final line break: the exact reader drops the break a block scalar gets there' },
  // js-yaml takes '---#' or '---x' as a document start, libyaml as text; and it allows a block collection on
  // the '---' line, which libyaml refuses (found by review). Real graph-data files have no markers or directives.
  { shape: /(^|\n)(---|\.\.\.|%)/, why: 'a document marker or a directive' },
  // Some tags (!!seq, !!map, a bare !) make js-yaml build a value the exact reader reads as text (found by review).
  { shape: /(^|[\s[{,:])!/, why: 'a tag' },
  { shape: /(^|[\s[{,:])\?(?=\s|$)/, why: 'an explicit key, which may be a collection' },
  // A flow collection and a ':' after it on its line; a ':' on a later line starts that line, which the
  // null key's shapes below catch (only whitespace and comments may come between, as flow context allows).
  { shape: /[\]}][ \t]*:/, why: 'a flow collection that may be a key' },
  { shape: /(^|\n) *\t/, why: 'a tab where indentation is' },
  { shape: /(^|\n) *(--- +)?([!&]\S* +)*[|>]/, why: 'a block scalar header first on its line, as the root is' },
  { shape: /(^|\n) *(- +)+-(\s|$)/, why: 'a compact nested sequence' },
  { shape: /(^|\n) *-[ \t]*(#[^\n]*)?(\n|$)/, why: 'a sequence entry with nothing on its line' },
  { shape: /(^|[\s,{[])(~|null|Null|NULL)?:(?=[\s,\]}]|$)/, why: 'a key that may be null' },
  { shape: /[ \t]:(?=[\s,\]}]|$)/, why: 'a key that may be null, with spaces before its :' },
];

/**
 * What js-yaml hands its listener: the parser's state, whose anchors defined so far are read. The anchor map
 * is not among the fields js-yaml's types declare, so the version is pinned and a unit test checks that a
 * file with an anchor is given way on; were the field gone, every file would be given way on, not misread.
 */
type ParserState = State & { anchorMap?: Record<string, unknown> };

/**
 * The value of a single-document YAML text as the exact reader would read it, or undefined when the quick
 * reader gives way (the caller then reads the text with the exact reader).
 */
export function readQuickly(text: string): unknown {
  if (DECLINED.some((d) => d.shape.test(text))) return undefined;
  // libyaml refuses an implicit key of more than 1,024 characters, js-yaml reads it (found by review).
  if (hasLineLongerThan(text, 1024)) return undefined;
  let state: ParserState | undefined;
  let value: unknown;
  try {
    value = load(text, {
      schema: SCHEMA,
      // js-yaml calls this at each node with its state; the last call leaves the anchors of the file.
      listener: (_event: string, s: ParserState) => {
        state = s;
      },
    });
  } catch {
    return undefined;
  }
  if (state?.anchorMap === undefined || Object.keys(state.anchorMap).length > 0) return undefined;
  return value === undefined ? null : value;
}

/** Whether a line of the text is longer than `max` characters; in one pass, as a regular expression is not. */
function hasLineLongerThan(text: string, max: number): boolean {
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n', start);
    if ((end < 0 ? text.length : end) - start > max) return true;
    if (end < 0) return false;
    start = end + 1;
  }
  return false;
}
