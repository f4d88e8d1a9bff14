// Label selectors as the Kubernetes API reads them from ?labelSelector=, with its grammar:
//   selector    := requirement { ',' requirement }
//   requirement := '!' KEY | KEY [ ('=' | '==' | '!=') VALUE | ('in' | 'notin') '(' VALUE { ',' VALUE } ')' | ('>' | '<') INTEGER ]
// Keys are qualified names and values label values (names.ts). A selector that does not parse is a 400
// saying what was found where, never a selector that matches everything.
import { KubeError } from './kubeError.js';
import { labelValue, qualifiedName } from './names.js';

export type LabelMatcher = (labels: Record<string, string>) => boolean;
export const matchAll: LabelMatcher = () => true;

type Token = { kind: 'word' | 'symbol' | 'end'; text: string };

const SYMBOLS = ['!=', '==', '=', '!', '(', ')', ',', '>', '<'];
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/** Splits a selector into words (keys, values, `in`, `notin`) and symbols; the longest symbol wins. */
function tokens(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (isSpace(c)) i++;
    else if (isSpecial(c)) {
      const symbol = SYMBOLS.find((s) => text.startsWith(s, i))!;
      out.push({ kind: 'symbol', text: symbol });
      i += symbol.length;
    } else {
      let j = i;
      while (j < text.length && !isSpecial(text[j]!) && !isSpace(text[j]!)) j++;
      out.push({ kind: 'word', text: text.slice(i, j) });
      i = j;
    }
  }
  out.push({ kind: 'end', text: '' });
  return out;
}

const shown = (t: Token): string => (t.kind === 'end' ? 'end of string' : t.text);
const invalid = (field: string, value: string, errs: string[]): string =>
  `${field}Invalid value: ${JSON.stringify(value)}: ${errs.join('; ')}`;

class Parser {
  private at = 0;
  constructor(private readonly items: Token[]) {}

  private peek(): Token {
    return this.items[this.at]!;
  }
  private next(): Token {
    return this.items[this.at++]!;
  }
  private isSymbol(t: Token, ...texts: string[]): boolean {
    return t.kind === 'symbol' && texts.includes(t.text);
  }

  selector(): LabelMatcher[] {
    const tests: LabelMatcher[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'end') return tests;
      if (t.kind !== 'word' && !this.isSymbol(t, '!'))
        throw new Error(`found '${shown(t)}', expected: !, identifier, or 'end of string'`);
      try {
        tests.push(this.requirement());
      } catch (err) {
        throw new Error(`unable to parse requirement: ${(err as Error).message}`);
      }
      const after = this.next();
      if (after.kind === 'end') return tests;
      if (!this.isSymbol(after, ',')) throw new Error(`found '${shown(after)}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.kind !== 'word' && !this.isSymbol(following, '!'))
        throw new Error(`found '${shown(following)}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelMatcher {
    let t = this.next();
    const absent = this.isSymbol(t, '!');
    if (absent) t = this.next();
    if (t.kind !== 'word') throw new Error(`found '${shown(t)}', expected: identifier`);
    const key = t.text;
    const keyErrors = qualifiedName(key);
    if (keyErrors.length) throw new Error(invalid('', key, keyErrors));
    const has = (l: Record<string, string>): boolean => Object.hasOwn(l, key);
    if (absent) return (l) => !has(l);
    const op = this.peek();
    if (op.kind === 'end' || this.isSymbol(op, ',')) return has;
    this.next();
    if (op.kind === 'word' && (op.text === 'in' || op.text === 'notin')) {
      const values = this.valueSet();
      return op.text === 'in' ? (l) => has(l) && values.has(l[key]!) : (l) => !has(l) || !values.has(l[key]!);
    }
    if (this.isSymbol(op, '=', '==', '!=')) {
      const value = this.exactValue();
      return op.text === '!=' ? (l) => !has(l) || l[key] !== value : (l) => has(l) && l[key] === value;
    }
    if (this.isSymbol(op, '>', '<')) {
      const text = this.exactValue();
      if (!/^[-+]?\d+$/.test(text))
        throw new Error(invalid('values[0]: ', text, ["for 'Gt', 'Lt' operators, the value must be an integer"]));
      const bound = BigInt(text);
      return (l) => {
        if (!has(l) || !/^[-+]?\d+$/.test(l[key]!)) return false;
        const n = BigInt(l[key]!);
        return op.text === '>' ? n > bound : n < bound;
      };
    }
    throw new Error(`found '${shown(op)}', expected: in, notin, =, ==, !=, gt, lt`);
  }

  /** `(a, b, c)`; an empty entry stands for the empty value, as `()` does. */
  private valueSet(): Set<string> {
    const open = this.next();
    if (!this.isSymbol(open, '(')) throw new Error(`found '${shown(open)}' expected: '('`);
    const values = new Set<string>();
    let expectValue = true;
    for (;;) {
      const t = this.next();
      if (this.isSymbol(t, ')')) {
        if (expectValue) values.add('');
        break;
      }
      if (this.isSymbol(t, ',')) {
        if (expectValue) values.add('');
        expectValue = true;
      } else if (t.kind === 'word' && expectValue) {
        values.add(this.checkedValue(t.text, values.size));
        expectValue = false;
      } else throw new Error(`found '${shown(t)}', expected: ',', ')' or identifier`);
    }
    return values;
  }

  private exactValue(): string {
    const t = this.peek();
    if (t.kind === 'end' || this.isSymbol(t, ',')) return '';
    this.next();
    if (t.kind !== 'word') throw new Error(`found '${shown(t)}', expected: identifier`);
    return this.checkedValue(t.text, 0);
  }

  private checkedValue(value: string, index: number): string {
    const errs = labelValue(value);
    if (errs.length) throw new Error(invalid(`values[${index}]: `, value, errs));
    return value;
  }
}

/** Parses a label selector; a 400 KubeError when it does not parse. */
export function parseLabelSelector(text: string | undefined): LabelMatcher {
  if (!text) return matchAll;
  let tests: LabelMatcher[];
  try {
    tests = new Parser(tokens(text)).selector();
  } catch (err) {
    throw new KubeError(
      400,
      'BadRequest',
      `unable to parse labelSelector ${JSON.stringify(text)}: ${(err as Error).message}`,
    );
  }
  return (labels) => tests.every((t) => t(labels));
}
