/** Plain-text tables for the terminal: a header, a rule, columns padded (numbers to the right). */
export interface Column<T> {
  title: string;
  get: (row: T) => string;
  align?: 'left' | 'right';
}

export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((r) => columns.map((c) => c.get(r)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (columns[i]?.align === 'right' ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.title)), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n') + '\n';
}

/** Epoch ms -> `2024-01-31 12:00:05` (UTC). */
export function formatTs(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
