// Text the command line did not write itself — what a server answered, what a file or a registry
// held — made safe to print in human form: each character a terminal would act on (controlCharacters.ts)
// is shown as an escape instead (ESC as \x1b, U+202E as \u202e). The escapes are for reading, not
// reversible (a backslash is left as it is); -o json prints the exact text.
import { CONTROL_CHARACTERS } from '../controlCharacters.js';

function escaped(c: string): string {
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** For one line or one table cell: every such character escaped, line breaks and tabs included. */
export function escapeLine(text: string): string {
  return text.replace(CONTROL_CHARACTERS, escaped);
}

/** For a block of lines written whole: the same, but its line breaks kept. */
export function escapeLines(text: string): string {
  return text.replace(CONTROL_CHARACTERS, (c) => (c === '\n' ? c : escaped(c)));
}
