import { defineConfig } from 'vitest/config';
import { testProjects } from './test/support/projects.js';
import { LongestFirstSequencer } from './test/support/sequencer.js';

// Three projects (test/support/projects.ts decides which file goes where, from what it does):
// `unit` (no sockets, no child processes, no browser: `npm run test:unit`, the edit loop),
// `integration` (the simulator over sockets, the API server, Redis) and `e2e` (the `mizan` CLI as a
// child process, the browser). `npm test` runs all three.
const files = testProjects(import.meta.dirname);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two test files at a time. vitest's default is one fewer than the cores, so one on a 2-core
    // machine; most files here wait on child processes, sockets and the simulator's clock, and two
    // at a time took the suite from about 19 to about 11 minutes there (1058 tests, 0 failed).
    maxWorkers: 2,
    reporters: ['default', './test/support/count-reporter.ts'],
    // The longest files start first (test/support/longest-first.ts), also in a fresh checkout.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      // Unit tests import the sources only: no build first. One module graph per worker for all of
      // its files (isolate: false): they hold no process state between files (no mocks, no stubbed
      // globals or timers), and the imports per file were half of the edit loop's time (about 64 s
      // isolated, 30 s shared, on this 2-core machine; the run is checked shuffled too).
      { extends: true, test: { name: 'unit', include: files.unit, isolate: false } },
      // Builds dist/ first when it is missing or older than the sources (bin/mizan.js runs it).
      { extends: true, test: { name: 'integration', include: files.integration, globalSetup: ['./test/support/build-dist.ts'] } },
      { extends: true, test: { name: 'e2e', include: files.e2e, globalSetup: ['./test/support/build-dist.ts'] } },
    ],
  },
});
