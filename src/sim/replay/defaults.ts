/**
 * The five markets `npm start` and `mizan sim` replay from the bundled slice (backtest/data):
 * - BTCUSDT: real Binance spot book and trades (hftbacktest captures, 2024-08-08 23:54 to
 *   2024-08-09 00:05 UTC), rebuilt from the depth diffs;
 * - ETHUSDT: **derived**: BTCUSDT x a real ETH/BTC ratio measured in February 2023
 *   (derivation.json), quantities / ratio (same notional);
 * - USDTTMN: **synthetic**: a rate path (an assumed level of `usdtTmn` Toman, default 59,000,
 *   ±0.2% hourly wave) replayed through the candle model;
 * - BTCTMN, ETHTMN: **derived**: the USDT market's book and trades x the USDTTMN rate, whole Toman.
 * Grids (decimal places) follow Wallex's published BTCUSDT market (tick 2, step 6); the others are
 * assumptions stated in MARKET_GRIDS.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';
import { Decimal } from '../../core/decimal.js';
import { DERIVATION, HFT_FILES, type Derivation } from './bundle.js';
import { candleSource } from './candle-source.js';
import { derivedSource, type DerivedMarket } from './derived.js';
import { hftSource } from './hft-source.js';
import { usdtTmnCandles, waveRate } from './rate.js';
import type { MarketGrid, ReplaySource } from './types.js';
import { windowSource } from './window.js';

export const MARKET_GRIDS: Readonly<Record<string, MarketGrid>> = {
  BTCUSDT: { tickDecimals: 2, stepDecimals: 6 },
  ETHUSDT: { tickDecimals: 2, stepDecimals: 4 },
  USDTTMN: { tickDecimals: 0, stepDecimals: 2 },
  BTCTMN: { tickDecimals: 0, stepDecimals: 6 },
  ETHTMN: { tickDecimals: 0, stepDecimals: 4 },
};

export const DEFAULT_MARKETS = ['BTCUSDT', 'ETHUSDT', 'USDTTMN', 'BTCTMN', 'ETHTMN'] as const;

/** `backtest/data` in mizan's package (the repository, or node_modules/mizan when installed). */
function bundledDataDir(): string {
  return join(PACKAGE_ROOT, 'backtest/data');
}

export interface DefaultSourcesOptions {
  /** Central USDTTMN rate, Toman. Default 59000 (an assumption, not data). */
  usdtTmn?: number;
  /** Relative amplitude of the hourly wave of the rate. Default 0.002. */
  rateAmplitude?: number;
  seed?: number;
}

export function readDerivation(dataDir: string): Derivation {
  return JSON.parse(readFileSync(join(dataDir, DERIVATION), 'utf8')) as Derivation;
}

/** How often the USDTTMN path's candle model prints (a book and a trade), ms. */
const USDT_STEP_MS = 5_000;

/** Spread added to the Toman markets derived through the moving USDTTMN rate (see derived.ts). */
const TMN_SPREAD_BPS = 10;

export function defaultReplaySources(dataDir: string = bundledDataDir(), opts: DefaultSourcesOptions = {}): ReplaySource[] {
  const d = readDerivation(dataDir);
  const ratio = new Decimal(d.ethBtcRatio);
  const inverse = new Decimal(1).div(ratio);
  const rate = waveRate({ base: opts.usdtTmn ?? 59_000, amplitude: opts.rateAmplitude ?? 0.002 });
  // deep base book: about 14 BTC levels (0.01 USDT apart) merge into one ETH cent
  const btc = hftSource(
    HFT_FILES.map((f) => join(dataDir, f)),
    { symbol: 'BTCUSDT', levels: 1500 },
  );
  const g = MARKET_GRIDS;
  const markets: DerivedMarket[] = [
    { symbol: 'ETHUSDT', from: 'BTCUSDT', factor: () => ratio, quantityFactor: () => inverse, ...g.ETHUSDT! },
    { symbol: 'BTCTMN', from: 'BTCUSDT', factor: rate, spreadBps: TMN_SPREAD_BPS, ...g.BTCTMN! },
    { symbol: 'ETHTMN', from: 'BTCUSDT', factor: (t) => rate(t).mul(ratio), quantityFactor: () => inverse, spreadBps: TMN_SPREAD_BPS, ...g.ETHTMN! },
  ];
  const usdt = candleSource(
    'USDTTMN',
    usdtTmnCandles(rate, { fromSec: Math.floor(d.captureFromMs / 1000), toSec: Math.floor(d.captureToMs / 1000), seed: opts.seed ?? 7 }),
    { ...g.USDTTMN!, resolutionSec: 60, seed: opts.seed ?? 7 },
  );
  // Its whole-minute bars run before the capture's first book and after its last event: cut to the
  // capture, so a looping replay wraps with every market at once (window.ts). It starts one step of
  // its path (5 s) early, so its book is there when the capture's first one comes: priming ends with
  // that first BTCUSDT book instead of playing seconds of the capture at once.
  return [derivedSource(btc, markets, { baseLevels: 50 }), windowSource(usdt, d.captureFromMs - USDT_STEP_MS, d.captureToMs)];
}
