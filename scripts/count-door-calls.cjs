// Counts, per MCP tool and REST handler, the distinct domain operations it calls (issue 25: one per door call).
// Usage: node scripts/count-door-calls.cjs [--all | --markdown]   (without either only the door calls with more than one)
const path = require('node:path');
const fs = require('node:fs');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'src');
const DOMAIN =
  /^src\/(files|drives|search|projects|uploads|sharing|identity|wiki|history|usage|feedback|feed|access|records|outbox)\//;
const DOOR = /^src\/(api|mcp)\//;
/** The harness every handler shares (builds the RequestContext, registers, pages): not the handler's own calls. */
const HARNESS = new Set(['requestContextOf', 'authOf', 'route', 'defineTool']);

const doorFiles = [
  ...fs
    .readdirSync(path.join(src, 'mcp'))
    .filter((f) => f.startsWith('tools-'))
    .map((f) => path.join(src, 'mcp', f)),
  ...fs.readdirSync(path.join(src, 'api/routes')).map((f) => path.join(src, 'api/routes', f)),
];
const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, ts.sys);
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();
const rel = (f) => path.relative(root, f);

function declOf(expr) {
  const node = ts.isPropertyAccessExpression(expr) ? expr.name : expr;
  let sym = checker.getSymbolAtLocation(node);
  if (!sym) return undefined;
  if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  return sym.declarations?.[0];
}

function bodyOf(decl) {
  if (ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl)) return decl.body;
  if (ts.isVariableDeclaration(decl) && decl.initializer) return decl.initializer;
  return undefined;
}

function domainCalls(node, seen = new Set(), found = new Set()) {
  const visit = (n) => {
    if (ts.isCallExpression(n)) {
      const callee = n.expression;
      const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText();
      const decl = HARNESS.has(name) ? undefined : declOf(callee);
      // A member of a returned record (an interface property such as OpenedContent.read) is part of the operation.
      if (decl && !ts.isPropertySignature(decl)) {
        const file = rel(decl.getSourceFile().fileName);
        if (DOMAIN.test(file)) found.add(`${file.replace(/^src\/|\.ts$/g, '')}:${name}`);
        else if (DOOR.test(file) && !seen.has(decl)) {
          seen.add(decl);
          const body = bodyOf(decl);
          if (body) domainCalls(body, seen, found);
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

const rows = [];
for (const file of doorFiles) {
  const sf = program.getSourceFile(file);
  const visit = (n) => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
      if (n.expression.text === 'defineTool' && n.arguments.length >= 5) {
        rows.push({ door: 'mcp', call: n.arguments[2].getText().replace(/'/g, ''), ops: domainCalls(n.arguments[4]) });
      } else if (n.expression.text === 'route' && n.arguments.length >= 3) {
        const spec = n.arguments[1];
        const prop = (k) => spec.properties?.find((p) => p.name?.getText() === k)?.initializer.getText();
        const call = `${(prop('method') ?? '?').replace(/'/g, '').toUpperCase()} ${(prop('path') ?? '?').replace(/['`]/g, '')}`;
        rows.push({ door: 'rest', call, ops: domainCalls(n.arguments[2]) });
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}

if (process.argv.includes('--markdown')) {
  // The door → operation table of docs/architecture.md ("One domain operation per door call").
  console.log('| door | call | domain operation |\n|---|---|---|');
  for (const r of rows) console.log(`| ${r.door} | \`${r.call}\` | ${[...r.ops].map((o) => `\`${o}\``).join(', ') || '(none)'} |`);
  process.exit(0);
}

const all = process.argv.includes('--all');
for (const door of ['mcp', 'rest']) {
  const mine = rows.filter((r) => r.door === door);
  const many = mine.filter((r) => r.ops.size > 1);
  console.log(`${door}: ${mine.length} door calls, ${many.length} call more than one domain operation`);
  for (const r of all ? mine : many) console.log(`  ${r.call} (${r.ops.size}): ${[...r.ops].join(', ')}`);
}
