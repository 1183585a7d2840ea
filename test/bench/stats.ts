/** The q-quantile (0..1) of a list of numbers, nearest-rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Share (0..1) of true values; NaN when empty. */
export function share(flags: readonly boolean[]): number {
  if (flags.length === 0) return Number.NaN;
  return flags.filter(Boolean).length / flags.length;
}

/** Format milliseconds for a table: µs below 1 ms. */
export function formatMs(ms: number): string {
  if (Number.isNaN(ms)) return "-";
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}

/** Format a share as a percentage. */
export function formatShare(value: number): string {
  return Number.isNaN(value) ? "-" : `${(value * 100).toFixed(1)} %`;
}

/** Render rows as a fixed-width text table. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ");
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}
