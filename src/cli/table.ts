// Text tables for the command line: columns padded to their widest cell, no trailing spaces.

/** A header and rows of cells; `gap` spaces between columns (kubectl's tabwriter leaves three). */
export function table(header: string[], rows: string[][], gap = 2): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + gap)))
      .join('')
      .trimEnd();
  return [header, ...rows].map(line).join('\n') + '\n';
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
