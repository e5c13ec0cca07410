/**
 * On-disk cache of fetched candles: one JSON file per source, symbol and resolution,
 * `<dir>/<source>/<SYMBOL>/<resolution>.json` (source: the host and port of the exchange or
 * simulator the candles came from, e.g. `api.wallex.ir` or `127.0.0.1_8080`), holding the candles
 * and the time ranges already fetched (`covered`, inclusive Unix seconds), so a range is fetched once
 * even where the exchange has no candle (no trade). The file also records the source's full origin
 * and is used only for that origin: candles of a simulator are never served for the exchange.
 * Values are stored as the exact decimal strings. Written atomically (temp file, then rename).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Decimal, toDecimal } from '../core/decimal.js';
import { ParameterError } from '../core/errors.js';
import type { Candle } from '../core/types/market.js';
import { type Range, mergeRanges } from './ranges.js';

export interface CandleStore {
  covered: Range[];
  /** By candle time (seconds). */
  candles: Map<number, Candle>;
}

interface CacheFile {
  version: 2;
  /** The origin (scheme, host, port) the candles were fetched from. */
  origin: string;
  symbol: string;
  resolution: string;
  covered: [number, number][];
  candles: [number, string, string, string, string, string][];
}

const SAFE = /^[A-Za-z0-9_-]+$/;
let tmpSeq = 0;

/**
 * The origin of a source URL (`https://api.wallex.ir/` -> `https://api.wallex.ir`) and the folder
 * its candles are cached in (`api.wallex.ir`; another scheme than https or a port is added:
 * `http_127.0.0.1_8080`).
 */
function cacheOrigin(url: string): { origin: string; folder: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ParameterError('source', url, 'a URL such as https://api.wallex.ir');
  }
  const scheme = u.protocol.replace(/:$/, '');
  const folder = [scheme === 'https' ? '' : scheme, u.hostname, u.port]
    .filter((p) => p !== '')
    .join('_')
    .replace(/[^A-Za-z0-9._-]/g, '_');
  return { origin: u.origin, folder };
}

export class CandleCache {
  private readonly origin: string;
  private readonly folder: string;
  /** `source`: the URL of the exchange or simulator the candles come from. */
  constructor(
    readonly dir: string,
    source: string,
  ) {
    ({ origin: this.origin, folder: this.folder } = cacheOrigin(source));
  }

  file(symbol: string, resolution: string): string {
    if (!SAFE.test(symbol)) throw new ParameterError('symbol', symbol, 'letters and digits only');
    if (!SAFE.test(resolution)) throw new ParameterError('resolution', resolution, 'letters and digits only');
    return path.join(this.dir, this.folder, symbol, `${resolution}.json`);
  }

  async load(symbol: string, resolution: string): Promise<CandleStore> {
    const file = this.file(symbol, resolution);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { covered: [], candles: new Map() };
      throw err;
    }
    const data = JSON.parse(text) as CacheFile;
    if (data.version !== 2 || !Array.isArray(data.covered) || !Array.isArray(data.candles)) {
      throw new Error(`candle cache ${file}: unknown format (version ${String(data.version)}); delete the file to fetch again`);
    }
    // Another origin mapped to the same folder (http and https of one host and port): not ours.
    if (data.origin !== this.origin) return { covered: [], candles: new Map() };
    const candles = new Map<number, Candle>();
    for (const [time, o, h, l, c, v] of data.candles) {
      candles.set(time, {
        time,
        open: toDecimal(o, `${file} open`),
        high: toDecimal(h, `${file} high`),
        low: toDecimal(l, `${file} low`),
        close: toDecimal(c, `${file} close`),
        volume: toDecimal(v, `${file} volume`),
      });
    }
    return { covered: mergeRanges(data.covered), candles };
  }

  async save(symbol: string, resolution: string, store: CandleStore): Promise<void> {
    const file = this.file(symbol, resolution);
    const s = (x: Decimal) => x.toFixed();
    const data: CacheFile = {
      version: 2,
      origin: this.origin,
      symbol,
      resolution,
      covered: mergeRanges(store.covered).map(([a, b]) => [a, b]),
      candles: [...store.candles.values()].sort((a, b) => a.time - b.time).map((c) => [c.time, s(c.open), s(c.high), s(c.low), s(c.close), s(c.volume)]),
    };
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${++tmpSeq}.tmp`;
    await writeFile(tmp, JSON.stringify(data));
    await rename(tmp, file);
  }
}
