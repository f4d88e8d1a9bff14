// Text tables for the command line, laid out as Go's text/tabwriter lays out what kubectl and oc print:
// every cell but a line's last padded to its column's widest cell plus a gap. `table` is for cells that
// may hold what a server or a file said: control characters are shown as escapes and no line ends in
// spaces.
import { escapeLine } from './terminalText.js';

interface Layout {
  /** The least width of a padded cell, padding included. */
  minWidth?: number;
  /** Spaces after a column's widest cell. */
  padding?: number;
}

/** Each row as one line: every cell but its last padded to its column's widest such cell plus `padding`. */
function alignedLines(rows: string[][], o: Layout): string[] {
  const minWidth = o.minWidth ?? 0;
  const padding = o.padding ?? 1;
  const widths: number[] = [];
  for (const row of rows)
    row.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, minWidth, cell.length + padding)));
  return rows.map((row) => row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell)).join(''));
}

/** Rows in columns as oc prints them (padding 1 unless given), each line ending in a newline; cells written as they are. */
export function alignColumns(rows: string[][], o: Layout = {}): string {
  return alignedLines(rows, o)
    .map((line) => `${line}\n`)
    .join('');
}

/** A header and rows of as many cells; `gap` spaces between columns (kubectl's tabwriter leaves three). */
export function table(header: string[], rows: string[][], gap = 2): string {
  const cells = [header, ...rows].map((row) => row.map(escapeLine));
  const lines = alignedLines(cells, { padding: gap }).map((line) => line.trimEnd());
  return `${lines.join('\n')}\n`;
}

/** Records as rows of the named columns, headed by the names in capitals; objects shown as JSON. */
export function recordTable(records: Array<Record<string, unknown>>, columns: string[]): string {
  const cell = (v: unknown): string =>
    v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return table(
    columns.map((c) => c.toUpperCase()),
    records.map((r) => columns.map((c) => cell(r[c]))),
  );
}
