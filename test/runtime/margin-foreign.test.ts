/**
 * A margin position this bot did not open (by hand, or another bot on the same account) is not its
 * strategies': `ctx.marginPositions()` does not list it, nothing in the bot books it, the stop summary
 * does not list it as the bot's. Before, the kernel gave such a position to the only strategy
 * trading its market (or the only strategy there was): a one-strategy bot started with a fresh
 * journal on an account holding another bot's positions took them over, and margin-trend would close
 * them at its next flip (the sixth audit). A paper bot; the position is opened on its venue directly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import { parseConfig } from '../../src/config/index.js';
import type { StrategyContext } from '../../src/index.js';
import { startBot, type Bot } from '../../src/runtime/bot.js';
import { waitFor } from '../support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-margin-foreign-'));
let bot: Bot | undefined;
afterAll(async () => {
  await bot?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a margin position opened outside the bot', () => {
  it('is not given to the only strategy on its market', async () => {
    const config = parseConfig(`
mode: paper
simulator: { seed: 4, speed: 2 }
strategies:
  - { name: spy, strategy: ./test/runtime/fixtures/ctx-spy.ts, markets: [BTCUSDT], resolution: "1" }
paper:
  balances: { USDT: 5000 }
journal: { file: ${join(dir, 'j.sqlite')} }
`);
    bot = await startBot(config, { logger: silentLogger, intervals: { statusEveryMs: 0, syncMs: 200 } });
    const ctx = (globalThis as { __mizanCtx?: StrategyContext }).__mizanCtx!;
    const b = bot;
    let mid = b.market.lastPrice('BTCUSDT');
    await waitFor(() => (mid = b.market.lastPrice('BTCUSDT')) !== undefined, { what: 'a BTCUSDT price', timeout: 20_000 });
    const p = await b.venue.openPosition({ market: 'BTCUSDT', side: 'long', collateral: d(100), riskCoef: d(2), openPrice: mid! });
    await waitFor(() => b.portfolio.marginPositions().some((x) => x.id === p.id), { what: 'the account read with the position', timeout: 20_000 });
    expect(b.kernel.owners.owner(p)).toBeUndefined();
    expect(ctx.marginPositions()).toEqual([]);
    const summary = await b.stop();
    bot = undefined;
    expect(summary).not.toContain(`#${p.id}`);
    expect(summary).not.toMatch(/left open/);
  }, 60_000);
});
