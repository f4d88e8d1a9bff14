// Turns the bytes of a graph-data YAML file into the text the reference implementation's YAML reader
// sees. The reference reads these files with serde_yaml 0.9, that is libyaml 0.2.5, which: picks the
// encoding by the byte order mark (UTF-16LE, UTF-16BE, else UTF-8) and drops the mark; refuses
// malformed text and any character outside the printable set of YAML 1.1; and takes a lone carriage
// return and NEXT LINE (U+0085) as line breaks, each read as '\n'. The yaml package reads a string and
// knows only LF and CRLF as breaks, so here the bytes are decoded the same way, the same characters
// are refused, and those two breaks become LF. Both are one UTF-16 unit long, as LF is, so every
// position the parser reports stays right. LINE SEPARATOR and PARAGRAPH SEPARATOR (U+2028, U+2029)
// are line breaks to libyaml too, but kept in the values it reads, so no such change of the text
// makes the two parsers agree: a file with either is refused.
import { TextDecoder } from 'node:util';

export type YamlText = { text: string } | { problem: string };

/** Characters libyaml accepts anywhere in a stream: tab, LF, CR, printable ASCII, NEL, and Unicode outside the C1 controls, surrogates and U+FFFE/U+FFFF. */
const REFUSED = /[^\t\n\r\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** U+2028 and U+2029 are line breaks to libyaml (YAML 1.1) and ordinary characters to the yaml package (YAML 1.2). */
const SEPARATOR = /[\u2028\u2029]/;

/** A carriage return not followed by LF, and NEXT LINE: line breaks that the yaml package does not know. */
const OTHER_BREAK = /\r(?!\n)|\u0085/g;

export function yamlText(bytes: Uint8Array): YamlText {
  let text: string;
  try {
    text = decode(bytes);
  } catch {
    return { problem: `not valid ${encodingOf(bytes)} text` };
  }
  const refused = REFUSED.exec(text);
  if (refused)
    return { problem: `${codePoint(refused[0])} is not allowed in YAML (line ${lineOf(text, refused.index)})` };
  const separator = SEPARATOR.exec(text);
  if (separator) {
    return {
      problem:
        `${codePoint(separator[0])} (line ${lineOf(text, separator.index)}) is a line break to the reference's ` +
        'YAML reader and not to this one: inside double quotes, write it as \\L or \\P',
    };
  }
  return { text: text.replace(OTHER_BREAK, '\n') };
}

function encodingOf(bytes: Uint8Array): 'UTF-16LE' | 'UTF-16BE' | 'UTF-8' {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'UTF-16LE';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'UTF-16BE';
  return 'UTF-8';
}

/** The text in the encoding its byte order mark names, without the mark; throws on malformed input. */
function decode(bytes: Uint8Array): string {
  const encoding = encodingOf(bytes);
  // `fatal` refuses malformed sequences; a leading byte order mark of the named encoding is dropped.
  if (encoding === 'UTF-8') return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  if (encoding === 'UTF-16LE') return new TextDecoder('utf-16le', { fatal: true }).decode(bytes);
  // UTF-16BE as UTF-16LE after swapping each pair of bytes; swap16 throws on an odd length.
  return new TextDecoder('utf-16le', { fatal: true }).decode(Buffer.from(bytes).swap16());
}

const codePoint = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The 1-based line of a position, counting the breaks libyaml counts. */
const lineOf = (text: string, index: number): number =>
  text.slice(0, index).split(/\r\n|\r|\n|\u0085|\u2028|\u2029/).length;
