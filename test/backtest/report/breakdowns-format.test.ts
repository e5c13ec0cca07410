/** Breakdowns by strategy, market and exit reason; the report's and the terminal's number and time formatting; colours only on a TTY. */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import { ANSI, PLAIN, computeBreakdowns, formatAmount, formatBreakdown, paintFor } from '../../../src/backtest/breakdowns.js';
import { chartStep } from '../../../src/backtest/report-html.js';
import { fixed, utcMinute } from '../../../src/backtest/report-format.js';
import type { TradeRecord } from '../../../src/portfolio/trade-record.js';
import type { Series } from '../../../src/backtest/data.js';

const H = 3_600_000;
function trade(t: Partial<TradeRecord> & Pick<TradeRecord, 'strategy' | 'symbol' | 'pnl' | 'exit'>): TradeRecord {
  return { side: 'long', entryTime: 0, exitTime: H, entryPrice: '1', exitPrice: '1', quantity: '1', pnlPct: 0, fees: '0', ...t };
}

const TRADES: TradeRecord[] = [
  trade({ strategy: 'a', symbol: 'BTCUSDT', pnl: '10.5', exit: 'signal', entryTime: 0, exitTime: 2 * H }),
  trade({ strategy: 'a', symbol: 'BTCUSDT', pnl: '-4.25', exit: 'stop loss', entryTime: 0, exitTime: 4 * H }),
  trade({ strategy: 'b', symbol: 'ETHUSDT', pnl: '0.1', exit: 'signal', entryTime: H, exitTime: 2 * H }),
  trade({ strategy: 'b', symbol: 'BTCUSDT', pnl: '-0.2', exit: 'take profit', entryTime: 0, exitTime: 6 * H }),
  // Another quote asset: valued (pnlReference) or not.
  trade({ strategy: 'b', symbol: 'USDTTMN', pnl: '50000', exit: 'signal', quote: 'TMN', pnlReference: '0.8' }),
  trade({ strategy: 'b', symbol: 'USDTTMN', pnl: '-1000', exit: 'open at end', quote: 'TMN' }),
];

describe('breakdowns', () => {
  const b = computeBreakdowns(TRADES, 'USDT', ['b', 'a'], ['BTCUSDT', 'ETHUSDT', 'USDTTMN']);

  it('sums trades, wins, pnl (exact decimals, in the reference asset) and durations per strategy', () => {
    expect(b.byStrategy).toEqual([
      { key: 'b', trades: 4, wins: 2, winRatePct: 50, pnl: '0.7', avgDurationMs: (H + 6 * H + H + H) / 4, unvalued: 1 },
      { key: 'a', trades: 2, wins: 1, winRatePct: 50, pnl: '6.25', avgDurationMs: 3 * H, unvalued: 0 },
    ]);
  });

  it('per market in the run order, per exit reason by count', () => {
    expect(b.byMarket.map((r) => [r.key, r.trades, r.pnl])).toEqual([
      ['BTCUSDT', 3, '6.05'],
      ['ETHUSDT', 1, '0.1'],
      ['USDTTMN', 2, '0.8'],
    ]);
    expect(b.byExit.map((r) => [r.key, r.trades, r.wins, r.pnl])).toEqual([
      ['signal', 3, 3, '11.4'],
      ['open at end', 1, 0, '0'],
      ['stop loss', 1, 0, '-4.25'],
      ['take profit', 1, 0, '-0.2'],
    ]);
    // Every trade is in exactly one row of each breakdown.
    for (const rows of [b.byStrategy, b.byMarket, b.byExit]) expect(rows.reduce((a, r) => a + r.trades, 0)).toBe(TRADES.length);
  });

  it('prints a table with aligned columns, pnl coloured only with colours on', () => {
    const plain = formatBreakdown('exit reason', b.byExit, 'USDT');
    expect(plain).toEqual([
      'exit reason  trades  win %            pnl USDT  avg duration',
      'signal            3  100.0               11.40        1h 20m',
      'open at end       1    0.0  0.00 (+1 unvalued)            1h',
      'stop loss         1    0.0               -4.25            4h',
      'take profit       1    0.0               -0.20            6h',
    ]);
    const coloured = formatBreakdown('exit reason', b.byExit, 'USDT', ANSI);
    expect(coloured[1]).toContain('\u001b[32m             11.40\u001b[0m');
    expect(coloured[3]).toContain('\u001b[31m             -4.25\u001b[0m');
    // The escape codes take no columns: without them the lines are the plain ones.
    expect(coloured.map((l) => l.replace(/\u001b\[\d+m/g, ''))).toEqual(plain);
  });

  it('colours only a TTY without NO_COLOR', () => {
    expect(paintFor({ isTTY: true }, {})).toBe(ANSI);
    expect(paintFor({ isTTY: true }, { NO_COLOR: '1' })).toBe(PLAIN);
    expect(paintFor({ isTTY: true }, { NO_COLOR: '' })).toBe(ANSI);
    expect(paintFor({ isTTY: false }, {})).toBe(PLAIN);
    expect(paintFor({}, {})).toBe(PLAIN);
  });
});

describe('report formatting', () => {
  it('prints amounts at a precision, grouped, rounded half up', () => {
    expect(fixed('16675.14', 2)).toBe('16,675.14');
    expect(fixed('0.293528000001', 6)).toBe('0.293528');
    expect(fixed('-23.49981827376', 2)).toBe('-23.50');
    expect(fixed('1234567', 0)).toBe('1,234,567');
    expect(fixed('0.125', 2)).toBe('0.13');
    expect(formatAmount(-2992.6412)).toBe('-2,992.64');
    expect(formatAmount(0.0000123)).toBe('0.00001230');
    expect(formatAmount(-0.001, 2)).toBe('0.00');
  });

  it('rounds as text exactly as Decimal does (random amounts, ties, carries, negatives that round to 0, exponents)', () => {
    const viaDecimal = (v: string, digits: number) => {
      const t = new Decimal(v).toFixed(Math.max(0, digits), Decimal.ROUND_HALF_UP);
      const [int, frac] = t.split('.') as [string, string | undefined];
      return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (frac !== undefined ? `.${frac}` : '');
    };
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const digitsOf = (n: number, pick: string) => Array.from({ length: n }, () => pick[rnd(pick.length)]).join('');
    const cases = [
      '0',
      '-0',
      '0.000',
      '-0.000',
      '-0.004',
      '-0.005',
      '0.005',
      '9.995',
      '-9.995',
      '999.9999',
      '99999.5',
      '0.5',
      '-0.5',
      '1e-7',
      '-2.5e-3',
      '1.5e+21',
      '00012.50',
    ];
    for (let i = 0; i < 4000; i++) {
      const sign = rnd(3) === 0 ? '-' : '';
      const int = rnd(4) === 0 ? '0' : digitsOf(1 + rnd(9), rnd(3) === 0 ? '9' : '0123456789').replace(/^0+(?=\d)/, '');
      const frac = rnd(5) === 0 ? '' : digitsOf(1 + rnd(14), rnd(3) === 0 ? '59' : rnd(2) === 0 ? '049' : '0123456789');
      cases.push(`${sign}${int}${frac ? `.${frac}` : ''}`);
    }
    for (const v of cases)
      for (const digits of [-1, 0, 1, 2, 3, 6, 8]) expect(`${v} ${digits} ${fixed(v, digits)}`).toBe(`${v} ${digits} ${viaDecimal(v, digits)}`);
  });

  it('prints times as YYYY-MM-DD HH:mm UTC', () => {
    expect(utcMinute(Date.parse('2023-01-03T04:05:59.999Z'))).toBe('2023-01-03 04:05 UTC');
  });

  it('puts every market on one bar grid: a common multiple of their candle lengths, at most maxCandles bars each', () => {
    const s = (resSec: number, n: number): Series => ({
      symbol: 'X',
      resSec,
      length: n,
      firstIndex: 0,
      time: new Float64Array(n),
      open: new Float64Array(n),
      high: new Float64Array(n),
      low: new Float64Array(n),
      close: new Float64Array(n),
      volume: new Float64Array(n),
    });
    expect(chartStep([s(300, 1000)], 5000)).toBe(300);
    expect(chartStep([s(300, 10_000)], 5000)).toBe(600);
    expect(chartStep([s(300, 1000), s(3600, 10)], 5000)).toBe(3600);
    expect(chartStep([s(300, 1000), s(450, 10)], 5000)).toBe(900);
    expect(chartStep([s(60, 20_000)], 5000)).toBe(240);
  });
});
