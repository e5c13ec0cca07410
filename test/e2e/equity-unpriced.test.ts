/**
 * A paper bot with drawdown protection does not halt when a book is emptied for a resync
 * (startBot: the embedded simulator over real HTTP and the stream, the paper exchange, a journal
 * file). The account holds 5,000 USDT and 0.1 BTC (about 6,000 USDT at the simulator's price).
 * With the BTCUSDT book empty and no trade seen, BTC has no price; a sample valuing the account at
 * 5,000 would be a drawdown of over 40 %. The kernel's one equity feed skips such samples (counted,
 * logged once); before it, the bot loop fed the protections every sample and the bot left active.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { d } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import { startBot } from '../../src/runtime/bot.js';
import { REPO, tempDir, waitFor } from './restart-helpers.js';

const tmp = tempDir('mizan-e2e-equity-unpriced-');
afterAll(() => tmp.remove());

/** A paper bot on the embedded simulator (no replay) running an idle strategy on BTCUSDT; `fed()` counts the equity samples that reach the protections. */
async function paperBot(balances: string, protections: string, journal: string) {
  const config = parseConfig(
    [
      'mode: paper',
      'exchange: { simulator: true }',
      'strategies:',
      `  - { name: idle, strategy: ${resolve(import.meta.dirname, 'fixtures/idle.ts')}, markets: [BTCUSDT], resolution: "60s" }`,
      `paper: { balances: ${balances} }`,
      `risk: { protections: ${protections} }`,
      `journal: { file: ${join(tmp.dir, journal)} }`,
      'logging: { level: warn, pretty: false }',
    ].join('\n'),
    { baseDir: REPO },
  );
  const bot = await startBot(config, {
    logger: silentLogger,
    sim: { port: 0, replay: false },
    intervals: { statusEveryMs: 0, pollMs: 200, syncMs: 500, equityMs: 100 },
  });
  let fed = 0;
  const onEquity = bot.risk.onEquity.bind(bot.risk);
  bot.risk.onEquity = (ts, equity) => (fed++, onEquity(ts, equity));
  return { bot, sim: bot.embedded!.sim, fed: () => fed };
}

describe('paper mode: an emptied book and drawdown protection', () => {
  it('skips the unpriced equity samples instead of halting', async () => {
    const { bot, sim, fed } = await paperBot('{ USDT: 5000, BTC: 0.1 }', '{ maxDrawdownPct: 10 }', 'paper.sqlite');
    const priced = () => bot.portfolio.equity(Date.now()).unpriced.length === 0;
    try {
      // The simulator's BTCUSDT book as it starts: the account's peak.
      await waitFor('BTC priced by the book', priced, 20_000);
      const mid = bot.kernel.prices.mark('BTCUSDT')!;
      const full = () => sim.replaceBook('BTCUSDT', [{ price: mid.minus(5), quantity: d('5') }], [{ price: mid.plus(5), quantity: d('5') }]);
      // A few priced samples: the peak.
      await waitFor('three priced samples fed to the protections', () => fed() >= 3, 20_000);
      expect(bot.risk.protections.memo.peak).toBeDefined();
      // The book is emptied (as during a resync), no trade was ever printed: BTC has no price.
      const empty = () => sim.replaceBook('BTCUSDT', [], []);
      empty();
      await waitFor(
        'BTC unpriced',
        () => {
          empty();
          return !priced();
        },
        20_000,
      );
      const skippedBefore = bot.kernel.unpricedSamples;
      await waitFor('several samples skipped', () => bot.kernel.unpricedSamples >= skippedBefore + 5, 20_000);
      expect(bot.risk.state.record.reason ?? '').toBe('');
      expect(bot.risk.state.state).toBe('active');
      // Priced again: the samples reach the protections, still no halt (no real loss).
      full();
      await waitFor(
        'BTC priced again',
        () => {
          full();
          return priced();
        },
        20_000,
      );
      const fedPriced = fed();
      await waitFor('five priced samples fed to the protections again', () => fed() >= fedPriced + 5, 20_000);
      expect(bot.risk.state.state).toBe('active');
    } finally {
      await bot.stop();
    }
  }, 90_000);

  it('leaves out a coin no market of the bot converts, and the protections still act', async () => {
    // Before: ETH (no market of the bot converts it) made every sample unpriced, so no sample reached
    // the protections and a 50 % fall of BTC never halted the bot (the status line read pnl +0.00).
    const { bot, sim, fed } = await paperBot('{ USDT: 5000, BTC: 0.1, ETH: 1 }', '{ maxDrawdownPct: 10, onBreach: halted }', 'paper-eth.sqlite');
    try {
      await waitFor('BTC priced by the book', () => bot.kernel.prices.mark('BTCUSDT') !== undefined, 20_000);
      await waitFor('three samples fed to the protections', () => fed() >= 3, 20_000);
      const e = bot.portfolio.equity(Date.now());
      expect(e.unvalued).toEqual(['ETH']);
      expect(e.unpriced).toEqual([]);
      expect(bot.risk.state.state).toBe('active');
      // BTC falls by half: the account (ETH left out) loses over 20 %.
      const mid = bot.kernel.prices.mark('BTCUSDT')!;
      const half = mid.div(2).toDecimalPlaces(2);
      await waitFor(
        'halted by the drawdown protection',
        () => {
          sim.replaceBook('BTCUSDT', [{ price: half.minus(5), quantity: d('5') }], [{ price: half.plus(5), quantity: d('5') }]);
          return bot.risk.state.state === 'halted';
        },
        20_000,
      );
      expect(bot.risk.state.record.reason ?? '').toMatch(/drawdown/);
    } finally {
      await bot.stop();
    }
  }, 90_000);
});
