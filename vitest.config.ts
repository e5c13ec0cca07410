import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Builds dist/ first when it is missing or older than the sources (bin/mizan.js runs it).
    globalSetup: ['./test/support/build-dist.ts'],
    reporters: ['default', './test/support/count-reporter.ts'],
  },
});
