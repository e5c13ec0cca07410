/**
 * A bot builds live candles per market only at the resolutions of the strategies trading it (and
 * the ones they declare with `candles:`): before, every market got every strategy's resolutions
 * (issue 33.7). A paper bot on the embedded simulator, over real HTTP and WebSocket on 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { startBot } from '../../src/runtime/bot.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-candles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('live candles per market', () => {
  it('are built only at the resolutions the strategies of that market use', async () => {
    const config = parseConfig(`
mode: paper
simulator: { seed: 3, speed: 1 }
strategies:
  - { name: a, strategy: sma-cross, markets: [BTCUSDT], resolution: 5s, candles: ["1"], params: { fast: 2, slow: 4, fraction: 0.01 } }
  - { name: b, strategy: sma-cross, markets: [ETHUSDT], resolution: "15", params: { fast: 2, slow: 4, fraction: 0.01 } }
journal: { file: ${join(dir, 'j.sqlite')} }
`);
    const bot = await startBot(config, { logger: silentLogger, intervals: { statusEveryMs: 0 }, sim: { port: 0 } });
    try {
      expect(() => bot.market.candles('BTCUSDT', 5)).not.toThrow();
      expect(() => bot.market.candles('BTCUSDT', 60)).not.toThrow();
      expect(() => bot.market.candles('ETHUSDT', 900)).not.toThrow();
      // Not used on these markets: not built.
      expect(() => bot.market.candles('BTCUSDT', 900)).toThrow(/no live candles of BTCUSDT at resolution 900s/);
      expect(() => bot.market.candles('ETHUSDT', 5)).toThrow(RangeError);
      expect(() => bot.market.candles('ETHUSDT', 60)).toThrow(RangeError);
    } finally {
      await bot.stop();
    }
  }, 60_000);
});
