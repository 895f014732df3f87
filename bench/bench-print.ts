import { ROLES, type StatementCounts } from './bench-stack.js';

/** Table and statement printing of bench:artifacts. */
const perRequest = (n: number, r: { requests: number }) => (n / Math.max(1, r.requests)).toFixed(2);

export function table(header: string[], rows: string[][]) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}

/** The statements of the API (and the worker) during a PUT phase, most frequent first. */
export function statementBreakdown(name: string, r: { requests: number; statements: StatementCounts }): string[] {
  const out: string[] = [];
  for (const [label, role] of [
    ['API', ROLES.api],
    ['worker', ROLES.worker],
  ] as const) {
    const m = r.statements.byStatement.get(role);
    if (!m) continue;
    out.push(`${name}, ${label}: ${perRequest(r.statements.byRole.get(role) ?? 0, r)}`);
    const ms = r.statements.msByStatement.get(role);
    const planMs = r.statements.planMsByStatement.get(role);
    for (const [text, calls] of [...m].sort((a, b) => b[1] - a[1])) {
      if (calls / r.requests < 0.05) continue;
      // per request: calls, then PostgreSQL's ms planning and executing (lock waits included)
      const spent = `${perRequest(planMs?.get(text) ?? 0, r)}+${perRequest(ms?.get(text) ?? 0, r)}ms`;
      const shown = text.length > 130 ? `${text.slice(0, 127)}...` : text;
      out.push(`  ${perRequest(calls, r).padStart(6)} ${spent.padStart(11)}  ${shown}`);
    }
  }
  return out;
}
