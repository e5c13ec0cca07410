/**
 * margin-trend under `mizan run` in paper mode: its margin intents pass risk (open price defaulted to
 * the mid), open positions on the paper exchange's margin desk, and a trend flip closes them (close
 * price defaulted to the mid) with close_reason `user`. Each closed position is booked once by the
 * kernel's margin book (those left open are listed in the stop summary), and the accounting invariant holds in paper: the trades' pnl (the open
 * positions valued as the equity values them, less their opening fee) is the account's change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { startBot, type Bot } from '../../src/runtime/bot.js';
import { waitForValue } from '../support/wait-for.js';
import { botControl } from '../../src/server/bot-adapter.js';
import { LogRing } from '../../src/server/log-ring.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-margin-'));
let bot: Bot | undefined;
afterAll(async () => {
  await bot?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('margin-trend in paper mode', () => {
  it('opens positions in the trend direction and closes them on a flip', async () => {
    const config = parseConfig(`
mode: paper
simulator: { seed: 6, speed: 4 }
strategies:
  - { name: mt, strategy: margin-trend, markets: [BTCUSDT], resolution: 1s, params: { fast: 2, slow: 3, collateral: 100, riskCoef: 2, stopLossPct: 5, takeProfitPct: 5 } }
paper:
  balances: { USDT: 5000 }
journal: { file: ${join(dir, 'j.sqlite')} }
`);
    const denials: string[] = [];
    const logger = {
      ...silentLogger,
      debug: ((o: unknown, m?: string) => {
        if (m === 'intent denied') denials.push(JSON.stringify(o));
      }) as typeof silentLogger.debug,
      child: () => logger,
    };
    bot = await startBot(config, { logger, intervals: { statusEveryMs: 0 } });
    bot.core.runners.get('mt')!; // exists
    const positions = () => bot!.venue.positions({});
    let seen: Awaited<ReturnType<typeof positions>> = [];
    const all = await waitForValue(
      async () => {
        seen = await positions();
        return seen.some((p) => p.state === 'closed') ? seen : undefined;
      },
      {
        what: 'a margin position closed',
        timeout: 40_000,
        interval: 300,
        detail: () => `positions: ${seen.map((p) => `${p.side} ${p.state}`).join(', ')}; denials: ${denials.slice(0, 3).join('; ')}`,
      },
    );
    expect(bot.core.denials, denials.slice(0, 3).join('; ')).toBe(0);
    const closed = all.filter((p) => p.state === 'closed');
    expect(closed.length).toBeGreaterThan(0);
    expect(closed[0]!.closeReason).toBe('user');
    expect(all.every((p) => p.collateral.value.toFixed() === '100' || p.state !== 'open')).toBe(true);
    const sides = new Set(all.map((p) => p.side));
    expect(sides.size).toBeGreaterThanOrEqual(1);

    // The API's strategy (its pnl rows) counts the margin trades, as the stop summary does: before, spot only.
    const api = botControl(bot, new LogRing());
    await bot.kernel.marginBook.idle(10_000);
    const booked = bot.kernel.marginBook.trades.reduce((a, t) => a.plus(t.trade.pnl), new Decimal(0));
    expect(booked.isZero()).toBe(false);
    const row = api.strategy('mt').pnl.find((r) => r.symbol === 'BTCUSDT');
    expect(new Decimal(row?.realized ?? '0').toDecimalPlaces(4).toFixed()).toBe(booked.toDecimalPlaces(4).toFixed());

    const summary = await bot.stop();
    const paper = bot.paper!;
    const after = await bot.venue.positions({});
    const ended = after.filter((p) => p.state === 'closed' || p.state === 'liquidated');
    expect(summary).toContain(`margin positions closed (${ended.length}):`);
    expect(bot.kernel.marginBook.trades.map((t) => t.positionId).sort()).toEqual(ended.map((p) => p.id).sort());
    // The positions the stop leaves open on the exchange are listed by id, with their state and profit.
    const left = after.filter((p) => p.state === 'open' || p.state === 'pending');
    if (left.length === 0) expect(summary).not.toContain('margin positions left open');
    else {
      expect(summary).toContain(`margin positions left open on the exchange (${left.length}; a stop does not close them`);
      for (const p of left) expect(summary).toMatch(new RegExp(`mt\\s+BTCUSDT\\s+#${p.id}\\s+${p.side}\\s+${p.state}\\s`));
    }
    // The invariant, exactly: every closed position's trade, plus what an open one is worth now
    // (its profit, as the equity counts it, less the opening fee it paid), is the account's change.
    let open = new Decimal(0);
    for (const p of after)
      if (p.state === 'open' || p.state === 'pending') open = open.plus(p.state === 'open' ? p.profit.value : 0).minus(paper.marginCosts(p.id).openFee);
    const usdt = paper.sim.balances('paper').USDT!.value;
    const change = usdt.minus(5000).plus(after.filter((p) => p.state === 'open').reduce((a, p) => a.plus(p.profit.value), new Decimal(0)));
    const trades = bot.portfolio.trades.pnlByQuote.get('USDT')!;
    expect(trades.plus(open).toFixed()).toBe(change.toFixed());
    bot = undefined;
  }, 60_000);
});
