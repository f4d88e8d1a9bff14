// Text tables for the command line: columns padded to their widest cell, no trailing spaces, and
// control characters in a cell shown as escapes (a cell may hold what a server or a file said).
import { escapeLine } from './terminalText.js';

/** A header and rows of cells; `gap` spaces between columns (kubectl's tabwriter leaves three). */
export function table(header: string[], rows: string[][], gap = 2): string {
  const lines = [header, ...rows].map((cells) => cells.map(escapeLine));
  const widths = header.map((_, i) => Math.max(...lines.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + gap)))
      .join('')
      .trimEnd();
  return lines.map(line).join('\n') + '\n';
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
