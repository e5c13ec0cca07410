import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { jsonPieces } from '../../src/core/json-pieces.js';

const CASES: [string, unknown][] = [
  [
    'a result-like object with every kind of value',
    {
      a: 1,
      b: [1, 2, { c: 'line\nbreak "quoted"', d: undefined, e: () => 1 }],
      empty: {},
      none: [],
      nil: null,
      nan: NaN,
      dec: new Decimal('1.50'),
      typed: Float64Array.from([1, 2.5]),
      holes: [undefined, () => 1, Symbol('s')],
      date: new Date(0),
      custom: { toJSON: () => ({ z: [1, { y: 2 }] }) },
      deep: [[[[1, [2]]]]],
      bare: Object.create(null) as object,
      sym: Symbol('left out'),
    },
  ],
  ['an empty array', []],
  ['an empty object', {}],
  ['a string', 'text'],
  ['a number', 5],
  ['null', null],
  ['nested empties', [{}, [], { a: {} }]],
  ['a deep object', { x: { y: { z: { w: [1, { v: 2 }] } } } }],
];

describe('jsonPieces', () => {
  for (const [name, value] of CASES) {
    it(`joined, is JSON.stringify(value, null, 2) at every depth: ${name}`, () => {
      for (const depth of [0, 1, 2, 3, 8]) expect([...jsonPieces(value, depth)].join('')).toBe(JSON.stringify(value, null, 2));
    });
  }

  it('gives an array of the top level a piece per element', () => {
    const pieces = [...jsonPieces({ trades: [{ a: 1 }, { a: 2 }, { a: 3 }] }, 2)];
    expect(pieces.filter((p) => p.includes('"a"'))).toEqual(['{\n      "a": 1\n    }', '{\n      "a": 2\n    }', '{\n      "a": 3\n    }']);
  });
});
