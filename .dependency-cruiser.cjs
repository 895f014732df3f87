// dependency-cruiser: the import boundaries of docs/architecture.md / DESIGN.md, checked over src/.
// Imports point down the LAYERS below: doors → shapes → domain → access → records → platform → infrastructure → lib;
// workflows → their messages and activity types.
// Why the cycle rule counts type-only imports too: docs/decisions.md, "Lint".

/**
 * The folders of src/, lowest first. A folder imports only folders of lower layers; folders of one layer never
 * import each other (the three doors side by side, the concepts of one floor side by side). docs/architecture.md
 * draws the same list.
 */
const LAYERS = [
  ['lib'], // leaves owned by no concept: errors, ids, time, config, logger, cursors, secrets, text extraction
  ['db', 'storage', 'temporal', 'mail'], // infrastructure clients
  ['platform'], // the process's services and the request context
  ['outbox', 'records'], // the outbox topics; the artifact rows every concept reads
  ['access'], // authorize(), grant records, the role table
  ['files'], // artifacts, folders, versions, trash, the event log
  ['drives', 'search', 'uploads', 'feedback', 'usage', 'projects', 'feed'], // concepts over files (feed: the change feed)
  ['identity', 'wiki'], // concepts over drives
  ['sharing'], // grants and share links (over identity)
  ['shapes', 'edge'], // record → public JSON and the zod schemas of both; the HTTP edge every door shares
  ['api', 'mcp', 'web'], // the doors
  ['server', 'activities'], // the API process's composition root; the worker's activities
  ['workflows'], // deterministic workflow code (type-only imports of activities)
  ['main.ts', 'worker.ts'], // the two process entry points
];
const folderPath = (name) => (name.endsWith('.ts') ? `^src/${name.replace('.', '\\.')}$` : `^src/${name}/`);
const layerRules = LAYERS.flatMap((layer, i) =>
  layer.flatMap((name) => {
    const above = LAYERS.slice(i + 1).flat();
    const siblings = layer.filter((other) => other !== name);
    if (!siblings.length && !above.length) return [];
    return {
      name: `layer-${name}`,
      severity: 'error',
      comment:
        `src/${name} is in layer ${i} of LAYERS: it may import only lower layers, never ` +
        `${[...siblings, ...above].join(', ')}. Move the shared piece down a layer instead.`,
      from: { path: folderPath(name) },
      to: { path: [...siblings, ...above].map(folderPath) },
    };
  }),
);

const ADAPTERS = '^src/(api|mcp|web)/';
const DOMAIN = `^src/(${LAYERS.slice(3, 9).flat().join('|')})/`;
const WORKFLOWS = '^src/workflows/';
// Signal/update/query definitions live in src/temporal as `<concept>-messages.ts` (or under
// src/temporal/messages/); they are bundled into the workflow code, so they are held to the same rule.
const TEMPORAL_MESSAGES = '^src/temporal/([^/]+-messages|messages/[^/]+)\\.ts$';
const NPM = (name) => `(^|/)node_modules/${name}/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'src-folders-are-layered',
      severity: 'error',
      comment: 'Every folder (and top-level file) of src/ has a place in LAYERS; add a new one there.',
      from: { path: '^src/', pathNot: LAYERS.flat().map(folderPath) },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import cycle, type-only edges included: two modules that know each other are one knot, and a ' +
        'type edge today is a value edge after the next refactor. Break it by moving the shared piece ' +
        '(a type, a message definition, a workflow type name) down a layer.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'adapter-not-to-db-or-storage',
      severity: 'error',
      comment:
        'Adapters (src/api, src/mcp, src/web) parse input, call one domain operation and shape the answer; ' +
        'they never reach PostgreSQL or S3 themselves: no src/db, src/storage, @mikro-orm/* or pg.',
      from: { path: ADAPTERS },
      to: { path: ['^src/(db|storage)/', NPM('@mikro-orm/[^/]+'), NPM('pg')] },
    },
    {
      name: 'domain-not-to-adapters',
      severity: 'error',
      comment: 'Domain modules are shared by REST, MCP and the web pages, so they never import one of them.',
      from: { path: DOMAIN },
      to: { path: ADAPTERS },
    },
    {
      name: 'workflow-imports-only-allowed',
      severity: 'error',
      comment:
        'Workflow code is deterministic and bundled for the Temporal sandbox: it imports only ' +
        '@temporalio/workflow, the message definitions in src/temporal and (type-only) activity types.',
      from: { path: WORKFLOWS },
      to: { pathNot: [WORKFLOWS, TEMPORAL_MESSAGES, '^src/activities/', NPM('@temporalio/workflow')] },
    },
    {
      name: 'workflow-activities-type-only',
      severity: 'error',
      comment:
        'A workflow reaches activities through proxyActivities<T>(); importing an activity module as a value ' +
        'would pull its I/O into the workflow bundle. Use `import type`.',
      from: { path: WORKFLOWS },
      to: { path: '^src/activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'temporal-messages-only-workflow-sdk',
      severity: 'error',
      comment:
        'Message definition files are imported by workflows, so they obey the workflow rule: ' +
        '@temporalio/workflow and other message files only.',
      from: { path: TEMPORAL_MESSAGES },
      to: { pathNot: [TEMPORAL_MESSAGES, NPM('@temporalio/workflow')] },
    },
    {
      name: 'no-workflow-values-outside-workflows',
      severity: 'error',
      comment:
        'Nothing outside src/workflows imports a workflow as a value: starting, signalling and scheduling go ' +
        'through src/temporal by workflow type name, and message definitions live in src/temporal. ' +
        'The worker loads workflow code by path, not by import.',
      from: { path: '^src/', pathNot: WORKFLOWS },
      to: { path: WORKFLOWS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'client-package-stands-alone',
      severity: 'error',
      comment: 'packages/client is published on its own: it speaks to the service over HTTP only, never imports it.',
      from: { path: '^packages/' },
      to: { path: '^(src|scripts|test|bench)/' },
    },
    {
      name: 'no-circular-in-packages',
      severity: 'error',
      comment: 'No import cycles in the client package either.',
      from: { path: '^packages/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file or package.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-non-package-json',
      severity: 'error',
      comment: 'A package imported by src/ but not listed in package.json: it works only while something else pulls it in.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment: 'src/ runs in production, where devDependencies are not installed (type-only imports are fine).',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'], pathNot: [NPM('@types/[^/]+')] },
    },
  ],
  options: {
    // Type-only imports are seen too (marked 'type-only'), so the rules above can tell them apart.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    cache: false,
  },
};
