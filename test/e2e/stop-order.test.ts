/**
 * The bot's shutdown order, declared once (runtime/lifecycle.ts): a paper bot's stop ends the
 * strategies before the market data, the loop and the exchange they trade on. A strategy that sells
 * in its onStop gets its sell checked against a live book and filled, and the stop summary counts
 * the fill (startBot: the embedded simulator over HTTP and the stream, the paper exchange, a journal file).
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/core/logger.js';
import { startBot } from '../../src/runtime/bot.js';
import { REPO, tempDir, waitFor } from './restart-helpers.js';

const tmp = tempDir('mizan-e2e-stop-order-');
afterAll(() => tmp.remove());

describe('paper mode: the stop order', () => {
  it("fills a strategy's onStop sell before the exchange, the journal and the books stop", async () => {
    const config = parseConfig(
      [
        'mode: paper',
        'exchange: { simulator: true }',
        'strategies:',
        `  - { name: seller, strategy: ${resolve(import.meta.dirname, 'fixtures/sell-on-stop.ts')}, markets: [BTCUSDT], resolution: "60s" }`,
        'paper: { balances: { USDT: 1000, BTC: 0.1 } }',
        `journal: { file: ${join(tmp.dir, 'paper.sqlite')} }`,
        'logging: { level: warn, pretty: false }',
      ].join('\n'),
      { baseDir: REPO },
    );
    const bot = await startBot(config, { logger: silentLogger, sim: { port: 0, replay: false }, intervals: { statusEveryMs: 0, pollMs: 200, syncMs: 500 } });
    const denials: string[] = [];
    bot.core.onDenial((d) => denials.push(`${d.rule}: ${d.reason}`));
    await waitFor('BTCUSDT book healthy', () => bot.market.health('BTCUSDT').healthy, 20_000);
    const text = await bot.stop();
    expect(denials).toEqual([]);
    expect(bot.core.fills).toBeGreaterThanOrEqual(1);
    expect(bot.portfolio.balance('BTC').value.toFixed()).toBe('0.09');
    expect(text).toMatch(/fills\s+1|1 fill/);
  }, 90_000);
});
