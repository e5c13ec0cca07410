/**
 * A strategy may not sell another strategy's coins, in paper mode (`startBot` on the embedded
 * simulator: the same kernel and risk engine as a backtest, balances from the paper venue). `buyer`
 * buys half the USDT in BTC; `sellr`, on the same market and holding nothing, asks to sell 0.1 BTC,
 * then `fraction(1)`: both denied by the ownership rule; `buyer` then sells its whole position and its
 * round trip closes. The backtest path: test/e2e/shared-coins-backtest.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Denial } from '../../src/core/views.js';
import { parseConfig } from '../../src/config/index.js';
import type { RoundTripClosed } from '../../src/portfolio/trade-book.js';
import { startBot, type Bot } from '../../src/runtime/bot.js';
import { waitFor } from '../support/wait-for.js';

const FIX = join(import.meta.dirname, '../e2e/fixtures/shared-coins.ts');
const dir = mkdtempSync(join(tmpdir(), 'mizan-shared-coins-'));
let bot: Bot | undefined;
afterAll(async () => {
  await bot?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("paper: a strategy may not sell another strategy's coins", () => {
  it("sellr's sells are denied by ownership; buyer sells its whole position", async () => {
    const config = parseConfig(`
mode: paper
simulator: { seed: 1, speed: 4 }
strategies:
  - { name: buyer, strategy: ${FIX}, markets: [BTCUSDT], resolution: 1s, params: { role: buy } }
  - { name: sellr, strategy: ${FIX}, markets: [BTCUSDT], resolution: 1s, params: { role: sell } }
paper:
  balances: { USDT: 10000 }
journal: { file: ${join(dir, 'paper.sqlite')} }
`);
    const denials: Denial[] = [];
    bot = await startBot(config, {
      logger: silentLogger,
      intervals: { statusEveryMs: 0, pollMs: 200, syncMs: 1000 },
      attach: (p) => p.risk.on('denied', (d) => denials.push(d)),
    });
    const b = bot;
    const position = () => b.portfolio.positions.get('buyer', 'BTCUSDT');
    // Registered once the bot started: buyer's round trip closes on its fifth candle, seconds later.
    const trips: RoundTripClosed[] = [];
    b.portfolio.trades.onClose((t) => trips.push(t));
    const closed = () => trips.filter((t) => t.strategy === 'buyer');
    await waitFor(() => closed().length >= 1, {
      what: "buyer's round trip to close",
      timeout: 40_000,
      interval: 200,
      detail: () => `position ${position()?.quantity.toFixed()}; denials: ${denials.map((d) => `${d.intent.strategy} ${d.rule}: ${d.reason}`).join('; ')}`,
    });
    expect(denials.map((d) => [d.intent.strategy, d.rule])).toEqual([
      ['sellr', 'ownership'],
      ['sellr', 'ownership'],
    ]);
    const N = String.raw`\d+\.\d+`;
    expect(denials[0]!.reason).toMatch(new RegExp(`^sellr may sell 0 BTC, asked 0\\.1 \\(account free (${N}); buyer holds \\1\\)$`));
    expect(denials[1]!.reason).toMatch(new RegExp(`^sellr may sell 0 BTC, asked fraction 1 of it \\(account free (${N}); buyer holds \\1\\)$`));
    // buyer sold what it held (what is left is below the step: dust, no position).
    expect(position()!.quantity.isZero()).toBe(true);
    expect(new Decimal(b.portfolio.balance('BTC').value).lt('0.000001')).toBe(true);
    expect(b.portfolio.positions.get('sellr', 'BTCUSDT')).toBeUndefined();
    expect(closed().map((t) => t.exit)).toEqual(['signal']);
  }, 60_000);
});
