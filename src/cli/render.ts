/** Small rendering helpers for people. Colour only on a TTY (node:util styleText), never in JSON. */
import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

export function paint(style: Style, text: string, stream: NodeJS.WriteStream = process.stderr): string {
  if (!stream.isTTY || process.env.NO_COLOR) return text;
  return styleText(style, text);
}

/**
 * A plain aligned table. Written here rather than taken from a package: oclif 4 dropped ux.table,
 * and @oclif/table renders through ink/React, which would triple start-up time for a few columns.
 */
export function table(rows: Record<string, unknown>[], columns: { key: string; header: string; max?: number }[]): string {
  if (rows.length === 0) return '';
  const cell = (v: unknown, max?: number): string => {
    let s = v === null || v === undefined ? '' : Array.isArray(v) ? v.join(', ') : String(v);
    s = s.replace(/\s+/g, ' ');
    return max && s.length > max ? s.slice(0, max - 1) + '…' : s;
  };
  const data = rows.map((r) => columns.map((c) => cell(r[c.key], c.max)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...data.map((d) => d[i].length)));
  const line = (cells: string[]): string => cells.map((s, i) => s.padEnd(widths[i])).join('  ').trimEnd();
  const header = paint('bold', line(columns.map((c) => c.header)), process.stdout);
  return [header, ...data.map(line)].join('\n');
}
