import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two test files at a time. vitest's default is one fewer than the cores, so one on a 2-core
    // machine; most files here wait on child processes, sockets and the simulator's clock, and two
    // at a time took the suite from about 19 to about 11 minutes there (1058 tests, 0 failed).
    maxWorkers: 2,
    // Builds dist/ first when it is missing or older than the sources (bin/mizan.js runs it).
    globalSetup: ['./test/support/build-dist.ts'],
    reporters: ['default', './test/support/count-reporter.ts'],
  },
});
