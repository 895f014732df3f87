/** Timestamps as PostgreSQL returns them (Date from the ORM, text from raw queries). */
export type Timestamp = string | Date;

/**
 * RFC 3339 in UTC, keeping PostgreSQL's microseconds (raw queries return timestamptz as text,
 * e.g. `2026-11-22 02:30:03.561892+00`), so a `before=` taken from a page bound is exact.
 */
export function iso(d: Timestamp | null): string | null {
  if (d === null || d === undefined) return null;
  if (d instanceof Date) return d.toISOString();
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?([+-]\d\d(?::?\d\d)?|Z)$/.exec(d);
  if (!m) return new Date(d).toISOString();
  if (m[4] === '+00' || m[4] === 'Z' || m[4] === '+00:00' || m[4] === '+0000') return `${m[1]}T${m[2]}${m[3] ?? ''}Z`;
  return new Date(`${m[1]}T${m[2]}${m[3] ?? ''}${m[4].length === 3 ? `${m[4]}:00` : m[4]}`).toISOString();
}
