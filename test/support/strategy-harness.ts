/** The strategy test harness is public (`mizan/testing`, src/testing/harness.ts); tests import it from here. */
export * from '../../src/testing/harness.js';
