// Runs one Typst compile in its own process (spawned by src/projects/engines.ts inside the
// sandbox wrapper): argv = <root dir> <entrypoint relative to root> <output pdf>. Writes the PDF,
// prints a human-readable log, and writes the diagnostics as JSON lines prefixed `DIAG `.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';

const [root, entry, out] = process.argv.slice(2);
const rel = (p) => (p && p.startsWith(root + path.sep) ? p.slice(root.length + 1) : p || null);
const compiler = NodeCompiler.create({ workspace: root });
const result = compiler.compile({ mainFilePath: path.join(root, entry) });
const errors = result.takeDiagnostics();
let failed = false;
if (errors) {
  for (const d of compiler.fetchDiagnostics(errors)) {
    const severity = d.severity === 1 || d.severity === 'error' ? 'error' : 'warning';
    if (severity === 'error') failed = true;
    const file = rel(d.path);
    const line = d.range?.start ? d.range.start.line + 1 : null;
    console.log(`${file ?? '?'}:${line ?? '?'}: ${severity}: ${d.message}`);
    console.log(`DIAG ${JSON.stringify({ severity, file, line, message: d.message })}`);
  }
}
if (failed || !result.result) {
  console.log('typst: compilation failed, no PDF written');
  process.exit(1);
}
// SOURCE_DATE_EPOCH (set by engines.ts from the newest source) dates the PDF: unchanged sources, same bytes.
const epoch = Number(process.env.SOURCE_DATE_EPOCH);
const pdf = compiler.pdf(result.result, epoch > 0 ? { creationTimestamp: epoch } : undefined);
writeFileSync(out, pdf);
console.log(`typst: output written on ${path.basename(out)} (${pdf.length} bytes)`);
