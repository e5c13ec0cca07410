/**
 * Rebuilds the bundled data slice (backtest/data/) from the shared real data, so every bundled
 * number can be traced and re-derived: `node bin/run-ts.js` a caller of `buildBundledData`, or run the
 * test that compares a fresh build with the committed files.
 * - hftbacktest spot BTCUSDT captures (MIT): copied byte for byte;
 * - BTCUSDT 1-minute bars built from those captures' trades (bundled format);
 * - freqtrade's orderflow/candles.json BTC/USDT 5m bars (GPL-3.0 repository; price facts) in the
 *   bundled format;
 * - derivation.json: the ETH/BTC ratio used to derive ETHUSDT, measured from freqtrade's
 *   ETH/USDT trades (orderflow/public_trades_list.csv, 2023-02-02 09:20:00-09:23:27 UTC) over the
 *   typical price (H+L+C)/3 of the BTC/USDT 5m bar that contains them; and the capture's time range.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from '../../core/decimal.js';
import { readCandles } from '../../market/files/read.js';
import { writeBundledCandles } from '../../market/files/bundled.js';
import { hftSource } from './hft-source.js';

export const HFT_FILES = ['hftbacktest/spot/btcusdt_20240808.gz', 'hftbacktest/spot/btcusdt_20240809.gz'] as const;
const HFT_CANDLES = 'BTCUSDT-1m-hftbacktest-20240808.csv';
const FREQTRADE_CANDLES = 'BTCUSDT-5m-freqtrade-2023.csv.gz';
export const DERIVATION = 'derivation.json';

export interface Derivation {
  ethBtcRatio: string;
  ethVwap: string;
  ethTrades: number;
  btcTypicalPrice: string;
  btcBarStart: string;
  captureFromMs: number;
  captureToMs: number;
  method: string;
}

const HFT_REPO = 'nkaz001/hftbacktest@5f3ec40b2afb764e0fea112f941ed85523ef4e88';
const FT_REPO = 'freqtrade/freqtrade@c9ae5e1e9ff25bb55dd61f5e5519f7c479291edb';

/** ETH/USDT VWAP of the freqtrade trade list, and the BTC/USDT bar containing its first trade. */
function measureEthBtcRatio(sharedDataDir: string): Omit<Derivation, 'captureFromMs' | 'captureToMs'> {
  const text = readFileSync(join(sharedDataDir, 'freqtrade/orderflow/public_trades_list.csv'), 'utf8');
  const rows = text.trim().split('\n');
  const head = rows[0]!.split(',');
  const [ti, pi, ai] = ['timestamp', 'price', 'amount'].map((n) => head.indexOf(n));
  let notional = new Decimal(0);
  let amount = new Decimal(0);
  let first = Infinity;
  for (const r of rows.slice(1)) {
    const f = r.split(',');
    first = Math.min(first, Number(f[ti!]));
    notional = notional.plus(new Decimal(f[pi!]!).mul(f[ai!]!));
    amount = amount.plus(f[ai!]!);
  }
  const vwap = notional.div(amount);
  const bars = readCandles(join(sharedDataDir, 'freqtrade/orderflow/candles.json'));
  const barStart = Math.floor(first / 1000 / 300) * 300;
  const bar = bars.find((b) => b.time === barStart);
  if (!bar) throw new RangeError(`no BTC/USDT bar at ${barStart}`);
  const typical = bar.high.plus(bar.low).plus(bar.close).div(3);
  return {
    ethBtcRatio: vwap.div(typical).toSignificantDigits(6).toFixed(),
    ethVwap: vwap.toDecimalPlaces(4).toFixed(),
    ethTrades: rows.length - 1,
    btcTypicalPrice: typical.toDecimalPlaces(4).toFixed(),
    btcBarStart: new Date(barStart * 1000).toISOString(),
    method:
      'ETH/USDT VWAP of the 1000 trades in freqtrade tests/testdata/orderflow/public_trades_list.csv ' +
      '(2023-02-02 09:20:00-09:23:27 UTC) divided by (high+low+close)/3 of the BTC/USDT 5m bar starting ' +
      '09:20 UTC in orderflow/candles.json; 6 significant digits. A real ratio from February 2023, applied ' +
      'unchanged to the August 2024 BTCUSDT capture: ETHUSDT in the replay is derived, not real.',
  };
}

export function buildBundledData(sharedDataDir: string, outDir: string): Derivation {
  mkdirSync(join(outDir, 'hftbacktest/spot'), { recursive: true });
  for (const f of HFT_FILES) {
    rmSync(join(outDir, f), { force: true });
    copyFileSync(join(sharedDataDir, f), join(outDir, f));
    chmodSync(join(outDir, f), 0o644);
  }
  const hft = hftSource(HFT_FILES.map((f) => join(sharedDataDir, f)));
  const bars = hft.candles('BTCUSDT');
  writeBundledCandles(join(outDir, HFT_CANDLES), bars, {
    symbol: 'BTCUSDT',
    resolutionSec: 60,
    source: `${HFT_REPO} examples/spot/btcusdt_20240808.gz + btcusdt_20240809.gz (Binance spot trades)`,
    licence: 'MIT (hftbacktest)',
    notes: 'Built from the trade prints (T, p, q) of the two captures; the first and last bars are partial.',
  });
  writeBundledCandles(join(outDir, FREQTRADE_CANDLES), readCandles(join(sharedDataDir, 'freqtrade/orderflow/candles.json')), {
    symbol: 'BTCUSDT',
    resolutionSec: 300,
    source: `${FT_REPO} tests/testdata/orderflow/candles.json (BTC/USDT 5m, exchange unstated)`,
    licence: 'Price facts from a GPL-3.0 repository; converted, attribution kept',
    notes: 'Column-dict JSON converted to the bundled CSV; numbers as JSON printed them.',
  });
  let from = Infinity;
  let to = -Infinity;
  const it = hft.events();
  for (let r = it.next(); !r.done; r = it.next()) {
    from = Math.min(from, r.value.time);
    to = Math.max(to, r.value.time);
  }
  const d: Derivation = { ...measureEthBtcRatio(sharedDataDir), captureFromMs: from, captureToMs: to };
  writeFileSync(join(outDir, DERIVATION), JSON.stringify(d, null, 2) + '\n');
  return d;
}
