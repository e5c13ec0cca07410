/** The `--param` syntax (README, Optimisation) and the η² importance on a function of one parameter. */
import { describe, expect, it } from 'vitest';
import { importanceText, paramImportance } from '../../src/optimize/importance.js';
import { Rng } from '../../src/optimize/rng.js';
import { parseParamSpec } from '../../src/optimize/space.js';

describe('--param syntax', () => {
  it('parses whole, real, stepped, log and categorical dimensions', () => {
    expect(parseParamSpec('fast=5..50')).toEqual({ kind: 'int', name: 'fast', low: 5, high: 50, step: 1, log: false });
    expect(parseParamSpec('fraction=0.1..1')).toEqual({ kind: 'float', name: 'fraction', low: 0.1, high: 1, log: false });
    expect(parseParamSpec('fraction=0..1', true)).toEqual({ kind: 'float', name: 'fraction', low: 0, high: 1, log: false });
    expect(parseParamSpec('fast=5..50:5')).toEqual({ kind: 'int', name: 'fast', low: 5, high: 50, step: 5, log: false });
    expect(parseParamSpec('x=0..1:0.25')).toEqual({ kind: 'float', name: 'x', low: 0, high: 1, step: 0.25, log: false });
    expect(parseParamSpec('lr=1e-4..1e-1:log')).toEqual({ kind: 'float', name: 'lr', low: 1e-4, high: 0.1, log: true });
    expect(parseParamSpec('n=2..64:log')).toEqual({ kind: 'int', name: 'n', low: 2, high: 64, step: 1, log: true });
    expect(parseParamSpec('mode=a,b,c')).toEqual({ kind: 'categorical', name: 'mode', choices: ['a', 'b', 'c'] });
    expect(parseParamSpec('on=true,false')).toEqual({ kind: 'categorical', name: 'on', choices: [true, false] });
    expect(parseParamSpec('sma.n=3,5,8')).toEqual({ kind: 'categorical', name: 'sma.n', choices: [3, 5, 8] });
  });
  it('names the param and the value in every error', () => {
    expect(() => parseParamSpec('lr=1e-4..1e-1:log:0.1')).toThrow('--param lr: "1e-4..1e-1:log:0.1" combines :log with a step (use one)');
    expect(() => parseParamSpec('x=0..1:0')).toThrow('--param x: "0..1:0" needs a positive step (got 0)');
    expect(() => parseParamSpec('x=1..2..3')).toThrow('--param x: "1..2..3" is not LOW..HIGH');
    expect(() => parseParamSpec('m=a,,b')).toThrow('--param m: "a,,b" has an empty choice');
    expect(() => parseParamSpec('m=a,b,a')).toThrow('--param m: "a,b,a" lists a choice twice');
    expect(() => parseParamSpec('m=')).toThrow('--param m: "" is empty');
    expect(() => parseParamSpec('fast')).toThrow('--param fast: "fast" is not name=LOW..HIGH[:STEP|:log] or name=a,b,c');
  });
});

describe('parameter importance (ε²)', () => {
  it('gives the parameter the objective depends on nearly all of it, an unused one nearly none', () => {
    const rng = new Rng(5);
    const trials = Array.from({ length: 2000 }, () => {
      const x = rng.uniform(-3, 3);
      const y = rng.uniform(-3, 3);
      const mode = ['a', 'b'][rng.int(2)]!;
      // An optimum inside x's range (a rank correlation would see little), y unused, mode a shift of 2.
      return { params: { x, y, mode }, value: -(x * x) + (mode === 'a' ? 2 : 0) };
    });
    const imp = paramImportance(['x', 'y', 'mode'], trials);
    expect(imp.map((i) => i.param)).toEqual(['x', 'mode', 'y']);
    expect(imp[0]!.epsilon2).toBeGreaterThan(0.75);
    expect(imp[1]!.epsilon2).toBeGreaterThan(0.05);
    expect(imp[2]!.epsilon2).toBeLessThan(0.02);
    expect(imp.reduce((s, i) => s + i.share, 0)).toBeCloseTo(1, 12);
  });

  it('is not measured when the trials cannot tell a parameter from chance (η² was 1 for every parameter)', () => {
    // Four trials, each its own choice of a categorical and its own value of a number: η² put every
    // trial in a group of its own and printed 1.000 (50 %) for both.
    const four = ['a', 'b', 'c', 'd'].map((mode, i) => ({ params: { mode, fast: 5 + i }, value: [0.3, -1.2, 2.5, 0.1][i]! }));
    const imp = paramImportance(['mode', 'fast'], four);
    const byName = Object.fromEntries(imp.map((i) => [i.param, i]));
    expect(byName.mode!.epsilon2).toBeUndefined();
    expect(importanceText(byName.mode!)).toBe('not measured (each of the 4 trials has its own value: too few trials)');
    // The number is binned in pairs (two bins of two): measurable, and not 1.
    expect(byName.fast!.groups).toBe(2);
    expect(byName.fast!.epsilon2).toBeLessThan(1);
    // Three trials: one bin, nothing to compare.
    const three = paramImportance(['fast'], four.slice(0, 3));
    expect(three[0]!.epsilon2).toBeUndefined();
    expect(importanceText(three[0]!)).toBe('not measured (too few trials to compare its values)');
    expect(three[0]!.share).toBe(0);
  });

  it('gives a parameter the objective does not depend on about nothing, however the trials are grouped', () => {
    // Pure noise: η² = SS_b / SS_t averages (k − 1) / (n − 1) here (10 groups of 40 trials: 0.23),
    // which read as "this parameter explains a quarter of the objective". ε² averages about 0.
    const rng = new Rng(11);
    let sum = 0;
    const runs = 200;
    for (let r = 0; r < runs; r++) {
      const trials = Array.from({ length: 40 }, () => ({ params: { x: rng.uniform(0, 1), k: rng.int(10) }, value: rng.uniform(-1, 1) }));
      const imp = paramImportance(['x', 'k'], trials);
      for (const i of imp) {
        expect(i.groups).toBeGreaterThanOrEqual(8);
        sum += i.epsilon2!;
      }
    }
    expect(sum / (2 * runs)).toBeLessThan(0.05);
  });
});
