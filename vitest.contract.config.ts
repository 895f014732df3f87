import { defineConfig } from 'vitest/config';

/** npm run test:contract: the schemathesis contract test against the same test stack as npm test. */
export default defineConfig({
  test: {
    include: ['test/contract/**/*.contract.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
