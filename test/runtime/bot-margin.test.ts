/**
 * margin-trend under `mizan run` in paper mode: its margin intents pass risk (open price defaulted to
 * the mid), open positions on the paper exchange's margin desk, and a trend flip closes them (close
 * price defaulted to the mid) with close_reason `user`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { startBot, type Bot } from '../../src/runtime/bot.js';
import { waitForValue } from '../support/wait-for.js';

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
  }, 60_000);
});
