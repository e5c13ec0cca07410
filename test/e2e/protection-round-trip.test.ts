/**
 * The protections judge a round trip by its whole pnl, the same number the backtest's trades report
 * (`mizan backtest` child process on the bundled BTC/USDT 5-minute data). The strategy sells half of
 * each position at a loss and the rest at a smaller gain, so every round trip loses money while its
 * last sell makes some. Before the fill was booked once, the protections read the last sell's
 * realised pnl from the position book (a gain), never saw a losing trade, and the cooldown never
 * paused the strategy.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-protection-trip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  trades: { exit: string; pnl: string; exitTag?: string }[];
  denied: { total: number; byRule: { rule: string; reasons: { reason: string }[] }[] };
}

describe('mizan backtest: a protection sees the round trip', () => {
  it('pauses the strategy after a round trip that lost, although its last sell gained', async () => {
    const cfg = join(dir, 'bt.yaml');
    writeFileSync(
      cfg,
      [
        'mode: backtest',
        'strategies:',
        '  - name: split',
        `    strategy: ${join(REPO, 'test/backtest/fixtures/split-exit.ts')}`,
        '    markets: [BTCUSDT]',
        '    resolution: "300s"',
        'risk:',
        '  protections:',
        '    cooldown: { losingTrades: 1, minutes: 600 }',
        'backtest:',
        '  data: [{ symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz }]',
        '  from: 2023-01-03T00:00:00Z',
        '  to: 2023-01-20T00:00:00Z',
        '  balances: { USDT: 10000 }',
        '  fees: { maker: 0, taker: 0 }',
        'journal: { file: ":memory:" }',
        '',
      ].join('\n'),
    );
    const out = join(dir, 'out');
    await promisify(execFile)(process.execPath, ['bin/mizan.js', 'backtest', cfg, '--out', out], { cwd: REPO, env: { ...process.env, NO_COLOR: '1' } });
    const raw = readFileSync(join(out, 'result.json'), 'utf8');
    const r = JSON.parse(raw) as Result;
    // The scenario happened: round trips closed by a gaining last sell, each a loss in total.
    const closed = r.trades.filter((t) => t.exitTag === 'rest');
    expect(closed.length).toBeGreaterThan(0);
    for (const t of closed) expect(Number(t.pnl)).toBeLessThan(0);
    // The cooldown saw them: the strategy's next entries were refused while it was paused.
    const reasons = r.denied.byRule.flatMap((b) => b.reasons.map((x) => x.reason));
    expect(reasons.some((x) => x.includes('cooldown after losing trades'))).toBe(true);
  }, 120_000);
});
