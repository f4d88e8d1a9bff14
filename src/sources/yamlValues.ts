// Parses the text of a graph-data YAML file (after yamlText) into the values the reference
// implementation reads from it. The reference deserializes these files with serde_yaml 0.9 over
// libyaml 0.2.5, into structures whose every leaf is a string. Where the yaml package reads such a
// file otherwise, the parsed document is corrected here:
//
// - Scalar types. serde_yaml hands a string field the scalar's text as written, so `4.10` is '4.10',
//   `true` is 'true' and `1e3` is '1e3'. Here scalars resolve with the failsafe schema (strings,
//   sequences, mappings) plus null, and explicit tags such as !!int are left unresolved, so every
//   scalar is its text. The null forms (an empty value, ~, null, Null, NULL) stay null: the reference
//   would read their text into a string field, but the readers here take null as "nothing given" and
//   refuse it where a string is required, so such a file is refused instead of read differently.
// - The final line break of a block scalar (| and >). Under the clip and keep chomping indicators,
//   libyaml keeps the line breaks that follow the last content line in the input, and there are none
//   when that line ends the input. The yaml package adds one anyway, so `promql: |` with a query as
//   the last line of a file without a final newline ended with '\n' here and not in the reference.
// - A tab where libyaml still looks for a block scalar's indentation: libyaml refuses the file, the
//   yaml package reads the tab as content; refused here too.
// - A key that is a sequence or a mapping: serde_yaml refuses it where it reads a string key, the yaml
//   package makes a string of it; refused here too.
//
// A file whose aliases, written out, would make it more than MAX_YAML_EXPANSION times as long is
// refused before its value is built (yamlExpansion.ts).
//
// The quick reader (yamlQuick.ts) is tried first; this exact reader reads the files it gives way on.
import {
  isAlias,
  isCollection,
  isNode,
  isScalar,
  parseDocument,
  visit,
  type DocumentOptions,
  type Pair,
  type ParseOptions,
  type Scalar,
  type SchemaOptions,
} from '#yaml';
import { expandedLength } from './yamlExpansion.js';
import { MAX_YAML_EXPANSION } from './treeLimits.js';
import { readQuickly } from './yamlQuick.js';

const PARSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  schema: 'failsafe',
  customTags: ['null'],
  resolveKnownTags: false,
  merge: false,
  // Keys are checked to be unique below, in one pass: the yaml package's own check compares each key with
  // every key before it (a file of 16,000 keys: 1.1 s instead of 0.1 s).
  uniqueKeys: false,
  prettyErrors: false,
  keepSourceTokens: true,
};

/** The value of a single-document YAML text; throws the first error the exact reader reports. */
export function parseYamlValues(text: string): unknown {
  const quick = readQuickly(text);
  return quick === undefined ? readExactly(text) : quick;
}

/** The value of a single-document YAML text read with the yaml package, corrected as above. */
export function readExactly(text: string): unknown {
  // The yaml package overflows its stack on flow collections nested some thousands deep, and past
  // about 16,000 the process dies (found by review). The reference's serde_yaml refuses nesting
  // past 128; the brackets are counted here in the text, quoted ones too, which is only ever more.
  const open = mostOpenBrackets(text);
  if (open > MAX_FLOW_NESTING)
    throw new Error(`${open} '[' or '{' open at once: flow collections nest at most ${MAX_FLOW_NESTING} deep`);
  const doc = parseDocument(text, PARSE_OPTIONS);
  if (doc.errors.length) throw doc.errors[0]!;
  const expanded = expandedLength(doc, text);
  if (expanded > MAX_YAML_EXPANSION * text.length)
    throw new Error(
      `its aliases expand it to ${expanded} characters, more than ${MAX_YAML_EXPANSION} times its own ${text.length}`,
    );
  // A key as it stands: an alias is the node it names. The line of a key, when the parser kept where it is.
  const keyOf = (pair: Pair): unknown => (isAlias(pair.key) ? pair.key.resolve(doc) : pair.key);
  const lineOfKey = (pair: Pair): number | undefined => {
    const at = isNode(pair.key) ? pair.key.range?.[0] : undefined;
    return at === undefined ? undefined : lineOf(text, at);
  };
  visit(doc, {
    Map(_, map) {
      const keys = new Set<unknown>();
      for (const pair of map.items) {
        const key = keyOf(pair);
        const value = isScalar(key) ? key.value : key; // a collection key is refused at its pair
        if (keys.has(value)) {
          const line = lineOfKey(pair);
          throw new Error(`Map keys must be unique${line === undefined ? '' : ` (a duplicate at line ${line})`}`);
        }
        keys.add(value);
      }
    },
    Pair(_, pair) {
      if (isCollection(keyOf(pair))) {
        const line = lineOfKey(pair);
        throw new Error(`a key that is a sequence or a mapping${line === undefined ? '' : ` at line ${line}`}`);
      }
    },
    Scalar(_, node) {
      const block = blockOf(node);
      if (!block) return;
      const tab = indentationTab(block);
      if (tab !== undefined) {
        const line = lineOf(text, block.offset) + 1 + tab;
        throw new Error(`a tab where a space of a block scalar's indentation is expected at line ${line}`);
      }
      if (typeof node.value === 'string' && node.value.endsWith('\n') && endsWithoutBreak(block)) {
        node.value = node.value.slice(0, -1);
      }
    },
  });
  // Aliases are bounded by the expanded length above, not by the yaml package's count of them.
  return doc.toJS({ maxAliasCount: -1 });
}

/** Nesting past this is refused, as serde_yaml's recursion limit refuses it. */
const MAX_FLOW_NESTING = 128;

/** The most '[' and '{' open at once in the text, quoted or not; in one pass. */
function mostOpenBrackets(text: string): number {
  let open = 0;
  let most = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) most = Math.max(most, ++open);
    else if ((c === 0x5d || c === 0x7d) && open > 0) open--;
  }
  return most;
}

/** What the rules below need of a block scalar (| or >) as written. */
interface Block {
  /** Where the scalar starts in the text (at its header). */
  offset: number;
  /** The header: | or >, then the chomping and indentation indicators, in either order. */
  header: string;
  /** The lines after the header, without their line breaks; the last is what follows the last break. */
  lines: string[];
  /** The indentation of the content; undefined when it is found from the lines and they are all blank. */
  indent: number | undefined;
}

function blockOf(node: Scalar): Block | undefined {
  const token = node.srcToken;
  if (token?.type !== 'block-scalar') return undefined;
  const header = token.props[0]?.type === 'block-scalar-header' ? token.props[0].source : '';
  const lines = token.source.split('\n').map((line) => line.replace(/\r$/, ''));
  // With an indentation indicator, the content is indented that much more than the parent node;
  // without one, as much as its first line with anything besides spaces.
  const indicator = /[1-9]/.exec(header);
  const first = lines.find((line) => /[^ ]/.test(line));
  const indent = indicator
    ? token.indent + Number(indicator[0])
    : first === undefined
      ? undefined
      : leadingSpaces(first);
  return { offset: token.offset, header, lines, indent };
}

/**
 * The index of the line where libyaml finds a tab while it still looks for the indentation, which it
 * refuses and the yaml package reads as content: without an indentation indicator, a tab right after
 * the leading spaces of the first line that has anything besides spaces.
 */
function indentationTab({ header, lines }: Block): number | undefined {
  if (/[1-9]/.test(header)) return undefined;
  const i = lines.findIndex((line) => /[^ ]/.test(line));
  return i >= 0 && lines[i]![leadingSpaces(lines[i]!)] === '\t' ? i : undefined;
}

/**
 * Whether the input has no line break after the block scalar's last content line (or, when it has
 * no content line, none at all), under the clip or keep chomping indicator: the case where the yaml
 * package adds a final '\n' that libyaml does not. A line is content when it has anything besides
 * spaces, or more spaces than the indentation.
 */
function endsWithoutBreak({ header, lines, indent }: Block): boolean {
  if (header.includes('-')) return false; // strip chomping keeps no final break in either
  const isContent = (line: string): boolean => /[^ ]/.test(line) || (indent !== undefined && line.length > indent);
  const hasContent = lines.some(isContent);
  return hasContent ? isContent(lines[lines.length - 1]!) : lines.length === 1;
}

const leadingSpaces = (line: string): number => /^ */.exec(line)![0].length;

/** The 1-based line of a position in the text. */
const lineOf = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;
