/**
 * Settings that would never apply passed `mizan check` (child processes, files in a temp dir): limits
 * keyed to markets or assets the bot never trades, and a paper balance in IRT (no market has it:
 * Toman markets are quoted in TMN). Each is now refused at its path with its value, like a `capital`
 * in an unrelated asset, by check and run alike. A strategy limit looser than the global one, and a
 * balance no traded market values, are check notes.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-never-apply-');
afterAll(() => tmp.remove());
const run = (args: string[]) => mizan(args, { cwd: tmp.dir, timeoutMs: 90_000, env: { MIZAN_CACHE_DIR: join(tmp.dir, 'cache') } });

describe('limits and balances that would never apply', { timeout: 120_000 }, () => {
  const NEVER = `mode: paper
exchange: { simulator: true }
strategies:
  - name: g1
    strategy: grid
    markets: [BTCTMN]
    resolution: '1'
    params: { levels: 3, spacingPct: 0.02, orderQuote: 20000000 }
    risk:
      maxPositionValue: { market: { BTCUSDT: 5000 }, total: { USDT: 100 }, asset: { ETH: 1 } }
risk:
  limits: { maxPositionValue: { market: { ETHTMN: 1000 }, total: { IRT: 100 } }, maxTotalLoan: { XRP: 5 } }
  marginMonitor: { topUpAtPct: 5, topUpBudget: { USDT: 100 } }
paper:
  balances: { IRT: 2000000000 }
journal: { file: ':memory:' }
`;

  it('check refuses each, naming the field and the value, and tells a Toman user who wrote IRT', async () => {
    const file = tmp.file('never.yaml', NEVER);
    const r = await run(['check', file]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toContain(`${file}: 8 problems`);
    const strategyMarkets = "the strategy's markets (BTCTMN: BTC/TMN)";
    const botMarkets = "the bot's markets (BTCTMN: BTC/TMN)";
    expect(r.all).toContain(`strategies[0].risk.maxPositionValue.market.BTCUSDT: 5000 would never apply: BTCUSDT is not one of ${strategyMarkets}`);
    expect(r.all).toContain(`strategies[0].risk.maxPositionValue.total.USDT: 100 USDT would never apply: USDT is not the quote asset of ${strategyMarkets}`);
    expect(r.all).toContain(`strategies[0].risk.maxPositionValue.asset.ETH: 1 ETH would never apply: ETH is not the base asset of ${strategyMarkets}`);
    expect(r.all).toContain(`risk.limits.maxPositionValue.market.ETHTMN: 1000 would never apply: ETHTMN is not one of ${botMarkets}`);
    expect(r.all).toMatch(
      /risk\.limits\.maxPositionValue\.total\.IRT: 100 IRT would never apply: IRT is not the quote asset of the bot's markets \(BTCTMN: BTC\/TMN\).*; Toman markets are quoted in TMN \(IRT, the rial, is no asset of any market\) \(line 12\)/,
    );
    expect(r.all).toContain(`risk.limits.maxTotalLoan.XRP: 5 XRP would never apply: XRP is neither the base nor the quote of ${botMarkets}`);
    expect(r.all).toContain(`risk.marginMonitor.topUpBudget.USDT: 100 USDT would never apply: USDT is neither the base nor the quote of ${botMarkets}`);
    expect(r.all).toMatch(
      /paper\.balances\.IRT: 2000000000 IRT would never be used: IRT is not an asset of any market \(BTC, ETH, TMN, USDT\).*quoted in TMN.*\(line 15\)/,
    );
  });

  it('mizan run refuses the same file before anything starts', async () => {
    const file = tmp.file('never-run.yaml', NEVER);
    const r = await run(['run', file, '--duration', '5']);
    expect(r.code, r.all).toBe(1);
    expect(r.stderr).toContain('8 problems');
    expect(r.stderr).toContain('risk.limits.maxTotalLoan.XRP: 5 XRP would never apply');
    expect(r.all).not.toContain('embedded simulator');
  });

  it('a strategy limit looser than the global one, and a balance no traded market values, are notes: check passes', async () => {
    const file = tmp.file(
      'notes.yaml',
      `mode: paper
strategies:
  - name: g1
    strategy: grid
    markets: [BTCUSDT]
    resolution: '1'
    params: { levels: 3, spacingPct: 0.02, orderQuote: 300 }
    risk: { maxOpenOrders: 5, maxPositionValue: { market: { BTCUSDT: 900 } }, orderRate: { limit: 30, windowMs: 5000 } }
risk:
  limits: { maxOpenOrders: 2, maxPositionValue: { market: { BTCUSDT: 500 } } }
paper:
  balances: { USDT: 1000, ETH: 1 }
journal: { file: ':memory:' }
`,
    );
    const r = await run(['check', file]);
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toContain(`${file}: ok (mode paper, embedded simulator)`);
    expect(r.stdout).toContain(
      "note: strategies[0].risk.maxOpenOrders: 5 is above risk.limits.maxOpenOrders (2): the global one binds (a strategy's limits only tighten the global ones) (line 8)",
    );
    expect(r.stdout).toContain('note: strategies[0].risk.maxPositionValue.market.BTCUSDT: 900 is above risk.limits.maxPositionValue.market.BTCUSDT (500)');
    expect(r.stdout).toContain('note: paper.balances.ETH: ETH cannot be valued in USDT by any market of the bot (BTCUSDT): it is left out of the equity');
    expect(r.stdout).toContain(
      'note: strategies[0].risk.orderRate: 30 per 5000 ms allows at least what risk.limits.orderRate does (20 per 10000 ms): the global one binds',
    );
    expect(r.stdout).not.toMatch(/note: paper\.balances\.USDT/);
  });
});
