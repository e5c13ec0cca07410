/**
 * An exchange refusal reaches the strategy as a denial with rule `exchange`, counted with the risk
 * denials (the status line's count, the API's denial log), in a paper bot on its real start path
 * (startBot: the embedded simulator over HTTP and the stream, the paper exchange, a journal file).
 * The paper account is drained behind the bot's back (as funds moved by hand between two balance
 * syncs would be): risk passes the buy on the last synced balance, the exchange refuses it (402).
 * Before, the strategy got only onOrder(rejected), and nothing counted it as a denial.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { d } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import { startBot } from '../../src/runtime/bot.js';
import { DenialLog } from '../../src/server/bot-adapter.js';
import { REPO, tempDir, waitFor } from './restart-helpers.js';

const tmp = tempDir('mizan-e2e-refusal-');
afterAll(() => tmp.remove());

describe('paper mode: an order the exchange refuses', () => {
  it('reaches the strategy as onDenied (rule exchange) and is counted as a denial', async () => {
    const config = parseConfig(
      [
        'mode: paper',
        'exchange: { simulator: true }',
        'strategies:',
        `  - { name: refused, strategy: ${resolve(import.meta.dirname, 'fixtures/refused-buy.ts')}, markets: [BTCUSDT], resolution: "60s" }`,
        'paper: { balances: { USDT: 1000 } }',
        `journal: { file: ${join(tmp.dir, 'paper.sqlite')} }`,
        'logging: { level: warn, pretty: false }',
      ].join('\n'),
      { baseDir: REPO },
    );
    let log: DenialLog | undefined;
    const bot = await startBot(config, {
      logger: silentLogger,
      sim: { port: 0 },
      intervals: { statusEveryMs: 0, pollMs: 200, syncMs: 600_000, equityMs: 600_000 },
      attach: (parts) => (log = new DenialLog(parts)),
    });
    try {
      const paper = bot.paper!.sim;
      paper.ledger.debitFree('paper', 'USDT', d('990'));
      bot.journal.kvSet('refused', 'go', true);
      await waitFor('the denial', () => (bot.journal.kvGet('refused', 'denied') as string[] | undefined)?.length === 1, 30_000);
      const denied = bot.journal.kvGet('refused', 'denied') as string[];
      expect(denied[0]).toMatch(/^exchange: /);
      expect(bot.journal.kvGet('refused', 'orders')).toContain('rejected');
      expect(bot.core.denials).toBe(1);
      expect(bot.core.denialTally.breakdown().byRule.map((b) => b.rule)).toEqual(['exchange']);
      expect(log!.recent('refused').map((x) => `${x.rule} ${x.intent} ${x.symbol}`)).toEqual(['exchange order BTCUSDT']);
    } finally {
      await bot.stop();
    }
  }, 90_000);
});
