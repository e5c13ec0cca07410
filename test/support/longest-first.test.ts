import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LONGEST, longestFirst, seededShuffle } from './longest-first.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the order the test files start in (test/support/sequencer.ts)', () => {
  it('every file LONGEST names is a test file of the suite, named once', () => {
    for (const f of LONGEST) {
      expect(f).toMatch(/^test\/.*\.test\.ts$/);
      expect(existsSync(join(REPO, f)), f).toBe(true);
    }
    expect(new Set(LONGEST).size).toBe(LONGEST.length);
  });

  it('puts the listed files first, in the order of the list, and keeps the order of the others', () => {
    const files = ['a', 'x', 'b', 'y', 'c', 'z'];
    expect(longestFirst(files, (f) => f, ['z', 'x'])).toEqual(['z', 'x', 'a', 'b', 'y', 'c']);
    expect(longestFirst(files, (f) => f, [])).toEqual(files);
    expect(longestFirst(files, (f) => f, ['missing'])).toEqual(files);
  });

  it('shuffles by seed: the same seed the same order, another seed another, nothing lost', () => {
    const files = Array.from({ length: 40 }, (_, i) => `f${i}`);
    const a = seededShuffle(files, 42);
    expect(seededShuffle(files, 42)).toEqual(a);
    expect(a).not.toEqual(files);
    expect(seededShuffle(files, 43)).not.toEqual(a);
    expect([...a].sort()).toEqual([...files].sort());
  });
});
