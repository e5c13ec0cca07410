/**
 * Brackets in paper mode, through the bot's real start path (startBot: the embedded simulator
 * serving REST and socket.io on 127.0.0.1, the market-data engine over the wire, the paper
 * exchange following it, a journal file). The test moves the embedded simulator's BTCUSDT market;
 * the paper exchange sees it through the stream like any market data.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { d } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import { startBot, type Bot } from '../../src/runtime/bot.js';
import { REPO, tempDir, waitFor } from './restart-helpers.js';
import { mizan } from './cli.js';
import { waitFor as waitForCondition } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-brk-paper-');
afterAll(() => tmp.remove());
const STRATEGY = resolve(import.meta.dirname, 'fixtures/bracket-entry.ts');

async function paperBot(name: string): Promise<{ bot: Bot; price(p: string): void; orders(): string[]; stop(): Promise<void> }> {
  const config = parseConfig(
    [
      'mode: paper',
      'exchange: { simulator: true }',
      'strategies:',
      `  - { name: brk, strategy: ${STRATEGY}, markets: [BTCUSDT], resolution: "1", params: { quantity: 0.01, stopLoss: 60000, takeProfit: 65000 } }`,
      'paper: { balances: { USDT: 10000 } }',
      `journal: { file: ${join(tmp.dir, `${name}.sqlite`)} }`,
      'logging: { level: warn, pretty: false }',
    ].join('\n'),
    { baseDir: REPO },
  );
  const bot = await startBot(config, {
    logger: silentLogger,
    sim: { port: 0, replay: false },
    intervals: { statusEveryMs: 0, pollMs: 200, syncMs: 1000, equityMs: 60_000 },
  });
  const sim = bot.embedded!.sim;
  let px = '62550';
  const set = () => {
    const p = d(px);
    sim.replaceBook(
      'BTCUSDT',
      [{ price: p.mul('0.9999').toDecimalPlaces(2), quantity: d('5') }],
      [{ price: p.mul('1.0001').toDecimalPlaces(2), quantity: d('5') }],
    );
    sim.recordTrade({ symbol: 'BTCUSDT', price: p, quantity: d('0.0001'), isBuyOrder: true, timestamp: Date.now() });
  };
  set();
  const timer = setInterval(set, 300);
  return {
    bot,
    price: (p) => {
      px = p;
      set();
    },
    orders: () => bot.paper!.sim.orders('paper').map((o) => `${o.type} ${o.side} ${o.status}`),
    stop: async () => {
      clearInterval(timer);
      await bot.stop();
    },
  };
}

describe('paper mode: brackets', () => {
  it('the take profit reached cancels the stop on the paper exchange and exits at market', async () => {
    const t = await paperBot('tp');
    try {
      await waitFor('the stop to rest', () => t.orders().includes('STOP_MARKET SELL NEW'), 20_000);
      expect(t.orders()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL NEW']);
      // The strategy sees the stop among its open orders.
      expect(t.bot.engine.liveOrders({ strategy: 'brk' }).map((o) => o.tag?.split(':')[0])).toEqual(['bracket-sl']);
      t.price('65000');
      await waitFor('the exit', () => t.orders().includes('MARKET SELL FILLED'), 10_000);
      expect(t.orders()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL CANCELED', 'MARKET SELL FILLED']);
      expect(t.bot.paper!.sim.balances('paper').BTC?.value.toFixed() ?? '0').toBe('0');
    } finally {
      await t.stop();
    }
    // The journal the bot wrote splits BTCUSDT as its market catalog did (no suffix guess, no --market).
    const pnl = await mizan(['journal', 'pnl', '--file', join(tmp.dir, 'tp.sqlite')]);
    expect(pnl.code, pnl.all).toBe(0);
    expect(pnl.stdout).toMatch(/^brk\s+BTCUSDT\s+2\s+0\s+-\s+\S+ USDT\s+\S+ USDT$/m);
  }, 60_000);

  it('the stop reached fills on the paper exchange, and the take profit is not acted on afterwards', async () => {
    const t = await paperBot('sl');
    try {
      await waitFor('the stop to rest', () => t.orders().includes('STOP_MARKET SELL NEW'), 20_000);
      t.price('59990');
      await waitFor('the stop to fill', () => t.orders().includes('STOP_MARKET SELL FILLED'), 10_000);
      // Trades at the take profit's price have reached the bot, four of them (one every 300 ms): the
      // moments it could have acted on have passed, however slow the machine.
      let atTakeProfit = 0;
      t.bot.market.on('trade', (tr) => {
        if (tr.symbol === 'BTCUSDT' && tr.price.gte(65000)) atTakeProfit++;
      });
      t.price('65000');
      await waitForCondition(() => atTakeProfit >= 4, { what: 'four trades at 65000 seen by the bot', timeout: 20_000 });
      expect(t.orders()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL FILLED']);
      expect(t.bot.paper!.sim.balances('paper').BTC?.value.toFixed() ?? '0').toBe('0');
    } finally {
      await t.stop();
    }
  }, 60_000);
});
