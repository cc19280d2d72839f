// CSV (RFC 4180): fields with a comma, quote, CR or LF are quoted, quotes doubled; CRLF lines.
export type CsvValue = string | number | boolean | null | undefined;

export function csvField(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  // A leading =, +, - or @ would be read as a formula by spreadsheets; numbers are left alone.
  const guarded = typeof v === 'string' && /^[=+\-@]/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

export function toCsv(columns: string[], rows: CsvValue[][]): string {
  return [columns, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
