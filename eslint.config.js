// ESLint: typescript-eslint's type-checked rules over everything tsconfig.json covers.
// Import boundaries and cycles are dependency-cruiser's job (.dependency-cruiser.cjs).
// Why each rule below is set the way it is: docs/decisions.md, "Lint".
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // schema.d.ts is generated (npm run client:generate); tsc still checks it.
  { ignores: ['node_modules/', '.tools/', '.data/', 'dist/', 'coverage/', 'packages/client/src/schema.d.ts'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@stylistic': stylistic },
    rules: {
      // Prettier (printWidth 120, `prettier --check` in the lint) formats code; it leaves comments and
      // strings alone, so this rule holds comments to the same width. SQL, messages and URLs may run long.
      '@stylistic/max-len': [
        'error',
        { code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
      // The three the issue names, as errors.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      // `_name` marks a parameter kept for its position (Express error handlers need four) and
      // `{ dropped, ...rest }` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `any` arrives from Express (req.body, req.query, error middleware) and from `res.json()` in
      // tests; the control there is zod parsing in route(), not these rules (1,100 findings, 90% tests).
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // With noUncheckedIndexedAccess off, `xs[i]!` is "unnecessary" yet says "present here".
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // An async function without await still turns a throw into a rejection; dropping `async`
      // to satisfy the rule would change that.
      '@typescript-eslint/require-await': 'off',
      // `if (c) (a(), b())` is this code base's idiom; every finding was that idiom.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  {
    // The web kit (src/web/kit) owns the CSRF check and the write budget of every page and form (issue 41): a web
    // handler that imports them checks by hand.
    files: ['src/web/**/*.ts'],
    ignores: ['src/web/kit/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/platform/rate-limits.js'],
              importNames: ['chargeWriteOrRefuse', 'chargeWrite'],
              message: 'Declare the form with `writes: true` (src/web/kit): the kit charges the write budget.',
            },
            {
              group: ['**/session.js'],
              importNames: ['csrfValid'],
              message: 'Declare a form() (src/web/kit): the kit checks CSRF.',
            },
          ],
        },
      ],
    },
  },
);
