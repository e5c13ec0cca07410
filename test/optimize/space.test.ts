/** The `--param` syntax (README, Optimisation) and the η² importance on a function of one parameter. */
import { describe, expect, it } from 'vitest';
import { paramImportance } from '../../src/optimize/importance.js';
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

describe('parameter importance (η²)', () => {
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
    expect(imp[0]!.eta2).toBeGreaterThan(0.75);
    expect(imp[1]!.eta2).toBeGreaterThan(0.05);
    expect(imp[2]!.eta2).toBeLessThan(0.02);
    expect(imp.reduce((s, i) => s + i.share, 0)).toBeCloseTo(1, 12);
  });
});
