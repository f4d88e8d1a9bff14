// Columns laid out as oc lays them out with Go's text/tabwriter: every cell but a line's last is padded
// to its column's widest cell plus `padding`, and to at least `minWidth` (padding included).

export function columns(rows: string[][], o: { minWidth?: number; padding?: number } = {}): string {
  const minWidth = o.minWidth ?? 0;
  const padding = o.padding ?? 1;
  const widths: number[] = [];
  for (const row of rows)
    row.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, minWidth, cell.length + padding)));
  return rows
    .map((row) => row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell)).join('') + '\n')
    .join('');
}
