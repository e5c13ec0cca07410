/**
 * Parity between paper mode and a backtest on the same candles (parity-run.ts) of the protections
 * that watch the account's equity and of the bot-wide order rate: each is bot-wide, so each gets its
 * own run.
 * - maxDrawdownPct / dailyLossLimitPct: the probe buys with 90 % of the account and sells it all two
 *   candles later (plan roundTrips, quote 9,000 USDT): a round trip pays the taker fee twice (0.2 %
 *   each way, about 0.36 % of the account), more than the 0.27 % limit, while the price moves of two
 *   one-second candles stay far below it. After the first sell's fill the next equity sample
 *   breaches; the bot moves to `reducing` and the next buy (candle 4) is denied with rule
 *   tradingState, in both modes. Both modes feed these protections the account's equity after every
 *   candle close (paper and live also every minute).
 * - limits.orderRate (the bot's window over every strategy): two instances placing a resting buy a
 *   candle share a window of 3 orders, so the second instance's buy on candle 1 and both from
 *   candle 2 on are denied with rule orderRate, in both modes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { inst, parityRunner, upTo, type ParityLog } from './parity-run.js';

const runner = parityRunner();
afterAll(() => runner.cleanup());

const RATE = 'limits: { orderRate: { limit: 1000, windowMs: 10000, reserveForCancels: 0 } }';
const ROUND_TRIPS = inst('trips', 'roundTrips', '', ', quote: 9000');
const show = (paper: Record<string, ParityLog>, backtest: Record<string, ParityLog>) => `paper ${JSON.stringify(paper)} | backtest ${JSON.stringify(backtest)}`;

describe('protections and the bot-wide order rate: paper versus backtest on the same candles', () => {
  for (const protection of ['maxDrawdownPct', 'dailyLossLimitPct']) {
    it(`${protection}: the round trip's fees breach it and the next buy is denied on the same candle`, async () => {
      const risk = `risk:\n  ${RATE}\n  protections: { ${protection}: 0.27 }`;
      const { paper, backtest, n } = await runner.paperThenBacktest(ROUND_TRIPS, risk, (l) => (l['trips']?.candles ?? 0) >= 10, 10);
      const s = show(paper, backtest);
      // Bought on candle 0, sold on candle 2; the buy of candle 4 is the first denied.
      expect(paper['trips']!.fills.slice(0, 2), s).toEqual(['rt-buy-0:BUY', 'rt-sell-2:SELL']);
      expect(paper['trips']!.denials[0], s).toBe('4:tradingState');
      expect(upTo(n)(backtest['trips']!.denials), s).toEqual(upTo(n)(paper['trips']!.denials));
      expect(backtest['trips']!.fills, s).toEqual(paper['trips']!.fills.slice(0, backtest['trips']!.fills.length));
    }, 120_000);
  }

  it('limits.orderRate: the bot-wide window denies the same instances on the same candles', async () => {
    const strategies = [inst('first', 'rest'), inst('second', 'rest')].join('\n');
    const risk = 'risk:\n  limits: { orderRate: { limit: 3, windowMs: 600000, reserveForCancels: 0 } }';
    const { paper, backtest, n } = await runner.paperThenBacktest(strategies, risk, (l) => (l['first']?.candles ?? 0) >= 5 && (l['second']?.candles ?? 0) >= 5, 5);
    const s = show(paper, backtest);
    expect(paper['first']!.denials.slice(0, 2), s).toEqual(['2:orderRate', '3:orderRate']);
    expect(paper['second']!.denials.slice(0, 2), s).toEqual(['1:orderRate', '2:orderRate']);
    for (const name of ['first', 'second']) expect(upTo(n)(backtest[name]!.denials), s).toEqual(upTo(n)(paper[name]!.denials));
  }, 120_000);
});
