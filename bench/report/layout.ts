/** The printed table's columns, and how rows and section titles line up under them. */

export type Row = [string, string, string, string, string, string, string, string];
/** A row of cells, or a section title (printed as `— title` across the whole width). */
export type Line = Row | string;

const HEADER: Row = [
  'measurement',
  'rows',
  'runs',
  'median',
  'spread',
  'rows/s',
  'peak RSS',
  'compared in this run',
];

/** Every column as wide as its widest cell; the first and last left-aligned, the rest right-aligned. */
export function layout(lines: readonly Line[]): string {
  const cells = lines.filter((line): line is Row => typeof line !== 'string');
  const widths = HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const render = (row: Row) =>
    row
      .map((cell, i) =>
        i === 0 || i === row.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!),
      )
      .join('  ')
      .trimEnd();
  const rule = '-'.repeat(widths.reduce((a, b) => a + b + 2, -2));
  const out = [render(HEADER), rule];
  for (const line of lines) out.push(typeof line === 'string' ? `— ${line}` : render(line));
  return out.join('\n');
}
