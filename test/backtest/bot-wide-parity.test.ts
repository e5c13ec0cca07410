/**
 * Parity between paper mode and a backtest on the same candles (parity-run.ts) of the protections
 * that watch the account's equity and of the bot-wide limits: each is bot-wide, so each gets its own
 * run.
 * - maxDrawdownPct / dailyLossLimitPct: the probe buys with 90 % of the account and sells it all two
 *   candles later (plan roundTrips, quote 9,000 USDT): a round trip pays the taker fee twice (0.2 %
 *   each way, about 0.36 % of the account), more than the 0.27 % limit, while the price moves of two
 *   one-second candles stay far below it. After the first sell's fill the next equity sample
 *   breaches; the bot moves to `reducing` and the next buy (candle 4) is denied with rule
 *   tradingState, in both modes. Both modes feed these protections the account's equity after every
 *   candle close (paper and live also every minute).
 * - the bot-wide limits (`risk.limits`, over every strategy): the order rate, the open orders, the
 *   position caps per quote asset and per asset. Two instances placing a resting buy a candle share
 *   each limit, so the same instance is denied on the same candle with the same rule in both modes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { filledOrders, inst, parityRunner, upTo, type ParityLog } from './parity-run.js';

const runner = parityRunner();
afterAll(() => runner.cleanup());

// The bot-wide order rate raised where another limit is tested (two orders a candle at speed 2 would pass the default 20 per 10 s).
const HIGH_RATE = 'orderRate: { limit: 1000, windowMs: 10000, reserveForCancels: 0 }';
const RATE = `limits: { ${HIGH_RATE} }`;
const ROUND_TRIPS = inst('trips', 'roundTrips', '', ', quote: 9000');
const show = (paper: Record<string, ParityLog>, backtest: Record<string, ParityLog>) => `paper ${JSON.stringify(paper)} | backtest ${JSON.stringify(backtest)}`;

describe('protections and bot-wide limits: paper versus backtest on the same candles', () => {
  for (const protection of ['maxDrawdownPct', 'dailyLossLimitPct']) {
    it(`${protection}: the round trip's fees breach it and the next buy is denied on the same candle`, async () => {
      const risk = `risk:\n  ${RATE}\n  protections: { ${protection}: 0.27 }`;
      const { paper, backtest, n } = await runner.paperThenBacktest(ROUND_TRIPS, risk, (l) => (l['trips']?.candles ?? 0) >= 10, 10);
      const s = show(paper, backtest);
      // Bought on candle 0, sold on candle 2; the buy of candle 4 is the first denied.
      const paperOrders = filledOrders(paper['trips']!.fills);
      const backtestOrders = filledOrders(backtest['trips']!.fills);
      expect(paperOrders.slice(0, 2), s).toEqual(['rt-buy-0:BUY', 'rt-sell-2:SELL']);
      expect(paper['trips']!.denials[0], s).toBe('4:tradingState');
      expect(upTo(n)(backtest['trips']!.denials), s).toEqual(upTo(n)(paper['trips']!.denials));
      expect(backtestOrders, s).toEqual(paperOrders.slice(0, backtestOrders.length));
    }, 120_000);
  }

  // Two instances each placing a resting buy a candle (20 USDT, or 0.001 BTC) share each limit: an
  // order rate or an open-order limit of 3 lets three through (the second's buy of candle 1 is the
  // fourth), a cap of 50 USDT or 0.0025 BTC two (the first's buy of candle 1 is the third).
  const LIMITS: { name: string; limits: string; params: string; rule: string; firstDenied: number }[] = [
    { name: 'limits.orderRate', limits: 'orderRate: { limit: 3, windowMs: 600000, reserveForCancels: 0 }', params: '', rule: 'orderRate', firstDenied: 2 },
    { name: 'limits.maxOpenOrders', limits: `maxOpenOrders: 3, ${HIGH_RATE}`, params: '', rule: 'exposure', firstDenied: 2 },
    { name: 'limits.maxPositionValue.total', limits: `maxPositionValue: { total: { USDT: 50 } }, ${HIGH_RATE}`, params: '', rule: 'exposure', firstDenied: 1 },
    {
      name: 'limits.maxPositionValue.asset',
      limits: `maxPositionValue: { asset: { BTC: 0.0025 } }, ${HIGH_RATE}`,
      params: ', baseQty: 0.001',
      rule: 'exposure',
      firstDenied: 1,
    },
  ];
  for (const { name, limits, params, rule, firstDenied } of LIMITS) {
    it(`${name}: the bot-wide limit denies the same instances on the same candles`, async () => {
      const strategies = [inst('first', 'rest', '', params), inst('second', 'rest', '', params)].join('\n');
      const { paper, backtest, n } = await runner.paperThenBacktest(
        strategies,
        `risk:\n  limits: { ${limits} }`,
        (l) => (l['first']?.candles ?? 0) >= 5 && (l['second']?.candles ?? 0) >= 5,
        5,
      );
      const s = show(paper, backtest);
      expect(paper['first']!.denials.slice(0, 2), s).toEqual([`${firstDenied}:${rule}`, `${firstDenied + 1}:${rule}`]);
      expect(paper['second']!.denials.slice(0, 2), s).toEqual([`1:${rule}`, `2:${rule}`]);
      for (const who of ['first', 'second']) expect(upTo(n)(backtest[who]!.denials), s).toEqual(upTo(n)(paper[who]!.denials));
    }, 120_000);
  }
});
