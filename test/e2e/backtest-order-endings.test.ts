/**
 * How a backtest's orders ended, as `mizan backtest` prints it: config/backtest.yaml's strategies on
 * the bundled data with a volume cap that cancels most market orders. Before, the summary said
 * "orders 310, trades 58" and nothing of the 195 orders the cap cancelled; the run without `--out`
 * (no order list) and the one with it must say the same.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-endings-');
afterAll(() => tmp.remove());

interface Result {
  summary: { orders: number };
  orderEndings: { states: Record<string, number>; reasons: { state: string; count: number; reason: string; firstOrder: string }[] };
  orders: { clientOrderId: string; state: string; reason: string | null }[];
}

describe('mizan backtest: how the orders ended', () => {
  it('counts the orders per final state and groups the reasons the exchange gave, with or without --out', async () => {
    const text = readFileSync(join(REPO, 'config/backtest.yaml'), 'utf8')
      .replace('file: backtest/data/', `file: ${join(REPO, 'backtest/data')}/`)
      .replace(/^ {2}closeAtEnd: .*$/m, '  closeAtEnd: false\n  volumeCapPct: 0.01');
    expect(text).toContain('volumeCapPct: 0.01');
    const config = tmp.file('capped.yaml', text);
    const out = join(tmp.dir, 'out');
    const [plain, withOut] = await Promise.all([mizan(['backtest', config]), mizan(['backtest', config, '--out', out])]);
    for (const r of [plain, withOut]) expect(r.code, r.all).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Result;

    // result.json's counts are its order list's.
    const states: Record<string, number> = {};
    for (const o of result.orders) states[o.state] = (states[o.state] ?? 0) + 1;
    expect(result.orderEndings.states).toEqual(states);
    expect(Object.values(states).reduce((a, b) => a + b, 0)).toBe(result.summary.orders);
    const capped = result.orders.filter((o) => o.reason?.includes('larger than the volume cap'));
    expect(capped.length).toBeGreaterThan(10);
    expect(result.orderEndings.reasons).toEqual([
      { state: 'cancelled', count: capped.length, reason: capped[0]!.reason, firstOrder: capped[0]!.clientOrderId },
    ]);

    // The terminal says so, the same without the order list.
    const line = `orders ${result.summary.orders} (${Object.entries(result.orderEndings.states)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ')}),`;
    for (const r of [plain, withOut]) {
      expect(r.stdout).toContain(line);
      expect(r.stdout).toContain(`orders the exchange ended, by reason:\n${String(capped.length).padStart(8)} × cancelled: ${capped[0]!.reason}`);
    }
  }, 60_000);
});
