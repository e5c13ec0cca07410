/**
 * Issue 35 item 8: `exchange.stream.maxChannelsPerConnection` in a bot's config, through the bot's
 * real start (startBot: the embedded simulator over WebSocket on 127.0.0.1, the market-data engine).
 * With 2 the bot's channels (two markets' depth sides and trades) spread over several connections of
 * at most 2 each; the default (50) keeps them on one. A value out of bounds is a config error.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/core/logger.js';
import { startBot } from '../../src/runtime/bot.js';
import { REPO, tempDir } from './restart-helpers.js';

const tmp = tempDir('mizan-e2e-channels-');
afterAll(() => tmp.remove());
const STRATEGY = resolve(import.meta.dirname, 'fixtures/bracket-entry.ts');

const yaml = (name: string, limit?: number) =>
  [
    'mode: paper',
    `exchange: { simulator: true${limit !== undefined ? `, stream: { maxChannelsPerConnection: ${limit} }` : ''} }`,
    'strategies:',
    `  - { name: s, strategy: ${STRATEGY}, markets: [BTCUSDT, ETHUSDT], resolution: "1", params: { quantity: 0.0001, stopLoss: 1, takeProfit: 1000000 } }`,
    'paper: { balances: { USDT: 10 } }',
    `journal: { file: ${join(tmp.dir, `${name}.sqlite`)} }`,
    'logging: { level: warn, pretty: false }',
  ].join('\n');

async function channelsOf(name: string, limit?: number): Promise<string[][]> {
  const bot = await startBot(parseConfig(yaml(name, limit), { baseDir: REPO }), {
    logger: silentLogger,
    sim: { port: 0, replay: false },
    intervals: { statusEveryMs: 0 },
  });
  try {
    return bot.stream.connectionChannels().filter((c) => c.length > 0);
  } finally {
    await bot.stop();
  }
}

describe('exchange.stream.maxChannelsPerConnection', () => {
  it('spreads the channels over connections of at most that many; the default keeps them on one', async () => {
    const two = await channelsOf('two', 2);
    const all = two.flat();
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const c of two) expect(c.length).toBeLessThanOrEqual(2);
    expect(two.length).toBe(Math.ceil(all.length / 2));
    const one = await channelsOf('default');
    expect(one).toHaveLength(1);
    expect(one[0]!.sort()).toEqual([...all].sort());
  }, 120_000);

  it('a value out of bounds is refused, naming the field', () => {
    expect(() => parseConfig(yaml('bad', 0), { baseDir: REPO })).toThrow(/exchange\.stream\.maxChannelsPerConnection: 0 must be a whole number from 1 to 1000/);
  });
});
