/**
 * vitest.config.ts `sequence.sequencer`: the longest test files first (test/support/longest-first.ts
 * says why and which).
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { longestFirst, seededShuffle } from './longest-first.js';

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { sequence, root } = this.ctx.config;
    if (sequence.shuffle) return seededShuffle(files, sequence.seed);
    return longestFirst(await super.sort(files), (f) => relative(root, f.moduleId));
  }
}
