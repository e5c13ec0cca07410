/**
 * `mizan backtest` reads each data file's text once (market/files/column-cache.ts), on the user's
 * path: run from a project folder with no MIZAN_CACHE_DIR, the first run parses the bundled CSV and
 * leaves its columns in the project's `.mizan/cache/candles/` (not beside the data); the second run
 * reads them from there and writes a byte-identical result.json; an edited data file is read again.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO } from './cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-colcache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mizan backtest: the candle column cache', () => {
  it('the second run reads the cached columns and gives the same result.json', async () => {
    const data = join(dir, 'data');
    mkdirSync(data);
    // The bundled 5-minute candles as a plain CSV the user keeps in their own folder.
    writeFileSync(join(data, 'btc.csv'), gunzipSync(readFileSync(join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz'))));
    const config = join(dir, 'bt.yaml');
    writeFileSync(
      config,
      [
        'mode: backtest',
        'strategies:',
        '  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "300s", params: { fast: 10, slow: 30, fraction: 0.5 } }',
        'backtest:',
        '  data: [ { symbol: BTCUSDT, file: data/btc.csv } ]',
        '  from: 2023-01-03',
        '  to: 2023-01-20',
        '  balances: { USDT: 10000 }',
        'journal: { file: ":memory:" }',
        'logging: { level: warn, pretty: false }',
      ].join('\n') + '\n',
    );
    const env = { MIZAN_CACHE_DIR: undefined, MIZAN_CANDLE_CACHE: undefined };
    const run = async (out: string) => {
      const r = await mizan(['backtest', config, '--out', join(dir, out)], { cwd: dir, env });
      expect(r.code, r.all).toBe(0);
      return readFileSync(join(dir, out, 'result.json'), 'utf8');
    };
    const first = await run('r1');
    const cache = join(dir, '.mizan/cache/candles');
    const entries = readdirSync(cache).filter((n) => n.endsWith('.cols'));
    expect(entries).toHaveLength(1);
    expect(readdirSync(data)).toEqual(['btc.csv']);
    const entry = join(cache, entries[0]!);
    const written = readFileSync(entry);
    const second = await run('r2');
    expect(second).toBe(first);
    // Read, not rewritten: the same bytes.
    expect(readFileSync(entry).equals(written)).toBe(true);

    // An edited file (one more candle) is read again and cached anew.
    const text = readFileSync(join(data, 'btc.csv'), 'utf8').trimEnd().split('\n');
    const last = text.at(-1)!.split(',');
    last[0] = String(Number(last[0]) + 300);
    writeFileSync(join(data, 'btc.csv'), [...text, last.join(',')].join('\n') + '\n');
    await run('r3');
    expect(readFileSync(entry).equals(written)).toBe(false);
  }, 120_000);
});
