// Counts, per MCP tool, REST handler and web page or form, the distinct domain operations it calls (issue 25: one per
// door call; issue 41: the web door's `page()`/`form()`/`upload()` declarations of src/web/kit).
// Usage: node scripts/count-door-calls.cjs [--all | --markdown]   (without either only the door calls with more than one)
const path = require('node:path');
const fs = require('node:fs');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'src');
const DOMAIN =
  /^src\/(files|drives|search|projects|uploads|sharing|identity|wiki|history|usage|feedback|feed|access|records|outbox)\//;
const DOOR = /^src\/(api|mcp|web)\//;
/** The harness every handler shares (builds the RequestContext, registers, pages): not the handler's own calls. */
const HARNESS = new Set(['requestContextOf', 'authOf', 'route', 'defineTool', 'page', 'form', 'upload']);
/**
 * Reading the bytes of a blob an operation returned, and the short-lived link that shows them from the content
 * origin, belong to that operation (as OpenedContent.read does on REST): the page renders what the read returned.
 */
const PART_OF_THE_READ = new Set(['files/content:readContent', 'sharing/content-links:mintContentLink']);
const WEB_KIT = 'src/web/kit/declare.ts';
/**
 * Door calls that call more than one operation, each with its reason (docs/architecture.md lists them). Signing in
 * checks the account, then starts this browser's session: the web door's credential, as the bearer is REST's.
 */
const EXCEPTIONS = {
  'web POST /auth/login': 'the password check, then the browser session it opens (ends the previous one)',
  'web POST /auth/verify':
    'two branches: signed out, the link and the password confirm, then the browser session it opens; signed in, ' +
    'the link confirms the session\'s own account (confirmEmail)',
  'web POST /auth/reset': 'the new password, then the browser session it opens (ends the previous one)',
};

const doorFiles = [
  ...fs
    .readdirSync(path.join(src, 'mcp'))
    .filter((f) => f.startsWith('tools-'))
    .map((f) => path.join(src, 'mcp', f)),
  ...fs.readdirSync(path.join(src, 'api/routes')).map((f) => path.join(src, 'api/routes', f)),
  ...walk(path.join(src, 'web')).filter((f) => !f.includes(`${path.sep}kit${path.sep}`)),
];

function walk(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .filter((f) => f.endsWith('.ts'));
}
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

/**
 * A domain operation takes the process's services (AppContext) or a RequestContext; a pure rule of a domain module
 * (a name mapping, a code's normal form) is no operation.
 */
function takesContext(decl) {
  const fn = ts.isVariableDeclaration(decl) ? decl.initializer : decl;
  const params = fn && 'parameters' in fn ? fn.parameters : [];
  return params.some((p) => /\b(AppContext|RequestContext)\b/.test(p.type?.getText() ?? ''));
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
        const op = `${file.replace(/^src\/|\.ts$/g, '')}:${name}`;
        if (DOMAIN.test(file) && !PART_OF_THE_READ.has(op) && takesContext(decl)) found.add(op);
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

/** A web declaration's spec: an object literal, or a helper's call returning one (its parameters bound to the call's). */
function specOf(arg) {
  if (ts.isObjectLiteralExpression(arg)) return { obj: arg, bind: new Map() };
  if (!ts.isCallExpression(arg)) return undefined;
  const decl = declOf(arg.expression);
  const fn = decl && bodyOf(decl);
  if (!fn || !(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn) || ts.isFunctionDeclaration(decl))) return undefined;
  const params = (ts.isFunctionDeclaration(decl) ? decl : fn).parameters;
  const bind = new Map(params.map((p, i) => [p.name.getText(), arg.arguments[i]]));
  let obj;
  const find = (n) => {
    if (!obj && ts.isObjectLiteralExpression(n)) obj = n;
    else if (!obj) ts.forEachChild(n, find);
  };
  find(fn);
  return obj && { obj, bind };
}

/** The text a spec property stands for: a literal, a bound parameter or a module constant, quotes dropped. */
function textOfProp(spec, key) {
  const prop = spec.obj.properties.find((p) => p.name?.getText() === key);
  if (!prop) return undefined;
  let expr = ts.isShorthandPropertyAssignment(prop) ? prop.name : prop.initializer;
  if (ts.isIdentifier(expr) && spec.bind.has(expr.text)) expr = spec.bind.get(expr.text);
  let text = expr.getText();
  for (const id of text.match(/\b[A-Z][A-Z_]+\b/g) ?? []) {
    const d = program
      .getSourceFile(expr.getSourceFile().fileName)
      .statements.flatMap((st) => (ts.isVariableStatement(st) ? st.declarationList.declarations : []))
      .find((v) => v.name.getText() === id);
    if (d?.initializer && ts.isStringLiteral(d.initializer)) text = text.replace(`\${${id}}`, d.initializer.text).replace(id, `'${d.initializer.text}'`);
  }
  return text.replace(/^\[|\]$/g, '').split(',')[0].trim().replace(/['`]/g, '');
}

/** The kit function an identifier names (`form as webForm` is `form`). */
function kitName(id) {
  const decl = declOf(id);
  return decl && ts.isFunctionDeclaration(decl) ? decl.name?.text : id.text;
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
      } else if (n.arguments.length === 2 && ['page', 'form', 'upload'].includes(kitName(n.expression))) {
        const decl = declOf(n.expression);
        const spec = specOf(n.arguments[0]);
        if (decl && rel(decl.getSourceFile().fileName) === WEB_KIT && spec) {
          const method = kitName(n.expression) === 'page' ? 'GET' : 'POST';
          const variant = textOfProp(spec, 'variant');
          const call = `${method} ${textOfProp(spec, 'path')}${variant ? ` ${variant}` : ''}`;
          rows.push({ door: 'web', call, ops: domainCalls(n.arguments[1]) });
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}

if (process.argv.includes('--markdown')) {
  // The door → operation table of docs/architecture.md ("One domain operation per door call").
  console.log('| door | call | domain operation |\n|---|---|---|');
  for (const r of rows) {
    const why = EXCEPTIONS[`${r.door} ${r.call}`];
    const ops = [...r.ops].map((o) => `\`${o}\``).join(', ') || '(none)';
    console.log(`| ${r.door} | \`${r.call.replace(/\|/g, '\\|')}\` | ${ops}${why ? ` (exception: ${why})` : ''} |`);
  }
  process.exit(0);
}

const all = process.argv.includes('--all');
let unexplained = 0;
for (const door of ['mcp', 'rest', 'web']) {
  const mine = rows.filter((r) => r.door === door);
  const many = mine.filter((r) => r.ops.size > 1);
  const named = many.filter((r) => EXCEPTIONS[`${door} ${r.call}`]);
  console.log(
    `${door}: ${mine.length} door calls, ${many.length} call more than one domain operation (${named.length} named exceptions)`,
  );
  for (const r of all ? mine : many) console.log(`  ${r.call} (${r.ops.size}): ${[...r.ops].join(', ')}`);
  unexplained += many.length - named.length;
}
// A door call with several operations and no named reason fails (lint runs this).
if (unexplained) {
  console.error(`${unexplained} door call(s) call more than one domain operation with no named exception`);
  process.exit(1);
}
