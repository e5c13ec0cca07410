/**
 * Audit finding 5: the simulator derived instant (OTC) order ids from its seed and a counter alone,
 * so every paper run and every `mizan sim` made the same ids (`OTC-8dcbbf4d-…` first): two paper runs
 * on one journal merged their orders (`mizan journal orders` showed one order with both runs' fills,
 * and a fill with the same key would have been dropped). As a user runs them: two `mizan run` of
 * otc-dca on one journal, two `mizan sim` processes answering an instant order; and two `mizan
 * backtest` of otc-dca still write byte-identical result.json files (a backtest's ids stay the seed's).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { REPO, mizanSync, sleep, startMizan, waitFor, type MizanChild } from './run-mizan.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-otc-ids-'));
const children: MizanChild[] = [];

afterAll(() => {
  for (const c of children) if (c.alive()) c.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function stop(c: MizanChild): Promise<void> {
  c.proc.kill('SIGINT');
  const end = await Promise.race([c.exited, sleep(30_000).then(() => undefined)]);
  if (!end) throw new Error(`no exit 30 s after SIGINT:\n${c.out().slice(-3000)}`);
  expect(end.code, c.out().slice(-3000)).toBe(0);
}

const filledIds = (c: MizanChild) =>
  c
    .lines()
    .filter((l) => l.msg === 'instant order filled')
    .map((l) => String(l.clientOrderId));

describe('instant order ids across runs', () => {
  it('two paper runs on one journal make different OTC ids: every fill keeps its own order', async () => {
    const journal = join(dir, 'paper.sqlite');
    const config = join(dir, 'paper.yaml');
    writeFileSync(
      config,
      `mode: paper
exchange:
  simulator: true
strategies:
  - name: usdt-dca
    strategy: otc-dca
    markets: [USDTTMN]
    resolution: '1'
    schedule: { cron: '*/2 * * * * *', timezone: UTC }
    params: { amount: 5000000 }
paper:
  balances: { TMN: 2000000000 }
journal:
  file: ${journal}
logging:
  level: info
`,
    );
    const runs: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const c = startMizan(['run', config]);
      children.push(c);
      await waitFor('two instant fills', () => filledIds(c).length >= 2, 90_000, c, 200);
      await stop(c);
      runs.push(filledIds(c));
    }
    const [first, second] = runs as [string[], string[]];
    for (const id of [...first, ...second]) expect(id).toMatch(/^OTC-[0-9a-f-]{36}$/);
    expect(second.filter((id) => first.includes(id))).toEqual([]);

    const j = Journal.open(journal, { readonly: true });
    try {
      const fills = j.fills({ strategy: 'usdt-dca' });
      expect(fills.map((f) => f.clientId).sort()).toEqual([...first, ...second].sort());
      // One order per fill: no order of the second run took a fill of the first.
      expect(new Set(fills.map((f) => f.clientId)).size).toBe(fills.length);
    } finally {
      j.close();
    }
  }, 240_000);

  it('two mizan sim processes (same seed, same key) answer an instant order with different ids', async () => {
    const sims = [startMizan(['sim', '--port', '0', '--no-replay']), startMizan(['sim', '--port', '0', '--no-replay'])];
    children.push(...sims);
    const ids: string[] = [];
    for (const sim of sims) {
      await waitFor('mizan sim to print its addresses', () => /API key +\S+/.test(sim.out()), 60_000, sim);
      const url = /REST +(http:\/\/127\.0\.0\.1:\d+)/.exec(sim.out())![1]!;
      const key = /API key +(\S+)/.exec(sim.out())![1]!;
      const res = await fetch(`${url}/v1/account/easy-trade/orders`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ symbol: 'BTCUSDT', side: 'BUY', quantity: '0.001', from: 'otc' }),
      });
      expect(res.status).toBe(201);
      ids.push(String(((await res.json()) as { clientOrderId: unknown }).clientOrderId));
    }
    for (const sim of sims) await stop(sim);
    expect(ids[0]).toMatch(/^OTC-/);
    expect(ids[1]).toMatch(/^OTC-/);
    expect(ids[1]).not.toBe(ids[0]);
  }, 120_000);

  it('two backtests of otc-dca write byte-identical result.json files, with the seed-only ids', () => {
    const config = join(dir, 'otc-dca-backtest.yaml');
    writeFileSync(
      config,
      `mode: backtest
strategies:
  - name: otc-dca
    strategy: otc-dca
    markets: [BTCUSDT]
    resolution: "300s"
    schedule: { cron: "30 */4 * * *", timezone: Asia/Tehran }
    params: { amount: 100, maxBuys: 10 }
backtest:
  data: [ { symbol: BTCUSDT, file: ${join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz')} } ]
  from: 2023-01-03
  to: 2023-01-06
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
logging: { level: warn }
`,
    );
    const results: string[] = [];
    for (const out of ['bt1', 'bt2']) {
      const r = mizanSync(['backtest', config, '--out', join(dir, out)]);
      expect(r.code, r.out).toBe(0);
      results.push(readFileSync(join(dir, out, 'result.json'), 'utf8'));
    }
    expect(results[1]).toBe(results[0]);
    // The first instant order's id: the seed's alone, as before.
    expect(results[0]).toContain('OTC-8dcbbf4d-e8a5-44f1-8676-d1f773a56f24');
  });
});
