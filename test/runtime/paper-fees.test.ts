import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { paperFees } from '../../src/runtime/paper.js';

describe("paper fees: the exchange's rates or paper.fees, never a guess", () => {
  it("takes paper.fees where set, else the market catalog's rates", () => {
    expect(paperFees({ makerFee: d('0.001'), takerFee: d('0.002') }, undefined)).toEqual({ makerFee: d('0.001'), takerFee: d('0.002') });
    expect(paperFees({ makerFee: d('0.001'), takerFee: d('0.002') }, { taker: '0.003' })).toEqual({ makerFee: d('0.001'), takerFee: d('0.003') });
    expect(paperFees({}, { maker: 0, taker: '0.0025' })).toEqual({ makerFee: d('0'), takerFee: d('0.0025') });
  });

  it('is undefined when neither gives a rate (the bot then refuses to start on that market)', () => {
    expect(paperFees({}, undefined)).toBeUndefined();
    expect(paperFees({ takerFee: d('0.002') }, undefined)).toBeUndefined();
    expect(paperFees({}, { maker: '0.001' })).toBeUndefined();
  });
});
