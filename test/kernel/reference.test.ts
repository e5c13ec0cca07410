import { describe, expect, it } from 'vitest';
import { referenceAsset } from '../../src/kernel/reference.js';
import { parseConfig } from '../../src/config/load.js';
import { runBacktest } from '../../src/backtest/run.js';
import { REPO } from '../backtest/helpers.js';

// Instruments as a catalog gives them: SHIBIRT is SHIB/IRT, which no suffix list guesses right.
const SPECS: Record<string, { base: string; quote: string }> = {
  BTCTMN: { base: 'BTC', quote: 'TMN' },
  BTCUSDT: { base: 'BTC', quote: 'USDT' },
  USDTTMN: { base: 'USDT', quote: 'TMN' },
  SHIBIRT: { base: 'SHIB', quote: 'IRT' },
};
const split = (s: string) => SPECS[s]!;

describe('the reference asset: one rule for every mode (kernel/reference.ts)', () => {
  it('takes reference: when set, if a traded market has that asset', () => {
    expect(referenceAsset('TMN', ['BTCUSDT', 'USDTTMN'], split)).toBe('TMN');
    expect(referenceAsset('BTC', ['BTCUSDT'], split)).toBe('BTC');
    expect(() => referenceAsset('ETH', ['BTCUSDT'], split)).toThrow(/reference: "ETH" is not an asset of a traded market \(BTCUSDT\)/);
  });

  it("else USDT when a traded market is quoted in USDT, else the first traded market's quote", () => {
    expect(referenceAsset(undefined, ['BTCTMN', 'BTCUSDT'], split)).toBe('USDT');
    expect(referenceAsset(undefined, ['BTCTMN', 'USDTTMN'], split)).toBe('TMN');
    expect(referenceAsset(undefined, ['SHIBIRT'], split)).toBe('IRT');
  });

  it('a backtest counts its equity in the configured reference asset', async () => {
    const config = parseConfig(
      `mode: backtest
reference: BTC
strategies:
  - name: sma
    strategy: sma-cross
    markets: [BTCUSDT]
    resolution: "300s"
    params: { fast: 10, slow: 30, fraction: 0.5 }
backtest:
  data: [ { symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz } ]
  from: 2023-01-03
  to: 2023-01-05
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
`,
      { baseDir: REPO },
    );
    const { result } = await runBacktest(config);
    expect(result.run.reference).toBe('BTC');
    // 10,000 USDT at about 16,700 USDT per BTC: about 0.6 BTC.
    expect(result.summary.startEquity).toBeGreaterThan(0.5);
    expect(result.summary.startEquity).toBeLessThan(0.7);
  }, 60_000);
});
