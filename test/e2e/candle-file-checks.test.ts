/**
 * Candle files that let a wrong setting through silently, on the user's path (`mizan check` and
 * `mizan backtest` as child processes, files in a temp dir):
 * - a CryptoDataDownload CSV (`Volume BTC`, `Volume USDT`, no `volume`) loaded with volume 0: the
 *   base asset's column is now the volume; volume-like columns none of them the base's stop the run
 *   naming them; a file without any volume column is a data note (run and check);
 * - a `.meta.json` of another market was ignored (BTCUSDT's candles traded as BTCTMN);
 * - a freqtrade JSON row was named by its 0-based index ("row 1500") where CSV lines count from 1.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-candle-files-');
afterAll(() => tmp.remove());
const run = (args: string[]) => mizan(args, { cwd: tmp.dir, timeoutMs: 90_000, env: { MIZAN_CACHE_DIR: join(tmp.dir, 'cache') } });

const T0 = Date.parse('2024-01-01T00:00:00Z') / 1000;
const N = 400;
/** A wave the SMA cross trades on: [time, open, high, low, close, base volume, quote volume]. */
const bars = Array.from({ length: N }, (_, i) => {
  const o = 100 + 10 * Math.sin(i / 6);
  const c = 100 + 10 * Math.sin((i + 1) / 6);
  // About the size of an order (fraction 0.5 of 10,000 USDT at about 100): a volume cap of 50 % binds on some.
  const v = 100 + 10 * (i % 5);
  return [T0 + 300 * i, o, Math.max(o, c) + 0.5, Math.min(o, c) - 0.5, c, v, v * c].map((x) => +x.toFixed(4));
});
const iso = (t: number) => new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19);
const csv = (name: string, header: string, row: (b: number[]) => string) => tmp.file(name, [header, ...bars.map(row)].join('\n') + '\n');

const PLAIN = csv('plain.csv', 'time,open,high,low,close,volume', (b) => b.slice(0, 6).join(','));
const CDD = csv('cdd.csv', 'unix,date,symbol,open,high,low,close,Volume BTC,Volume USDT,tradecount', (b) =>
  [b[0]! * 1000, iso(b[0]!), 'BTC/USDT', ...b.slice(1, 7), 10].join(','),
);
const NO_VOLUME = csv('novol.csv', 'time,open,high,low,close', (b) => b.slice(0, 5).join(','));
const OTHER = csv('other.csv', 'date,open,high,low,close,Volume ETH,Volume USDT', (b) => [iso(b[0]!), ...b.slice(1, 5), b[5], b[6]].join(','));

const backtestYaml = (symbol: string, file: string, extra = '') => `mode: backtest
strategies:
  - { name: sma, strategy: sma-cross, markets: [${symbol}], resolution: "300s", params: { fast: 2, slow: 4, fraction: 0.5 } }
backtest:
  data: [ { symbol: ${symbol}, file: ${file} } ]
  from: ${T0 + 3600}
  to: ${T0 + 300 * N}
  volumeCapPct: 50
${extra}journal: { file: ":memory:" }
logging: { level: warn, pretty: false }
`;

interface Result {
  summary: { trades: number; orders: number; endEquity: number };
  trades: unknown[];
  data: { notes: string[] };
}
const result = (out: string) => JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Result;

describe('a candle CSV whose volume column has another name', { timeout: 180_000 }, () => {
  it('reads Volume <BASE> (CryptoDataDownload) as the volume: the same trades as the file with a volume column', async () => {
    const plain = await run(['backtest', tmp.file('plain.yaml', backtestYaml('BTCUSDT', PLAIN)), '--out', join(tmp.dir, 'out-plain')]);
    expect(plain.code, plain.all).toBe(0);
    const cdd = await run(['backtest', tmp.file('cdd.yaml', backtestYaml('BTCUSDT', CDD)), '--out', join(tmp.dir, 'out-cdd')]);
    expect(cdd.code, cdd.all).toBe(0);
    const a = result(join(tmp.dir, 'out-plain'));
    const b = result(join(tmp.dir, 'out-cdd'));
    expect(a.summary.trades).toBeGreaterThan(1);
    expect(b.summary).toEqual(a.summary);
    expect(b.trades).toEqual(a.trades);
    expect(cdd.stdout).toContain(`data note: BTCUSDT: volume read from the column "Volume BTC" of ${CDD} (the base asset's volume)`);
    expect(cdd.stdout).not.toMatch(/cancelled: market order .* volume 0/);
  });

  it("volume columns none of them the base asset's: check and backtest refuse the file, naming the columns", async () => {
    const file = tmp.file('other.yaml', backtestYaml('BTCUSDT', OTHER));
    for (const args of [
      ['check', file],
      ['backtest', file, '--out', join(tmp.dir, 'out-other')],
    ]) {
      const r = await run(args);
      expect(r.code, r.all).toBe(1);
      expect(r.all).toContain(
        `${OTHER}, line 1, field volume: volume columns "Volume ETH", "Volume USDT", none of them is the base asset's volume (Volume BTC): a candle's volume in mizan is the base asset's`,
      );
    }
    expect(existsSync(join(tmp.dir, 'out-other', 'result.json'))).toBe(false);
  });

  it("no volume column at all: volume 0, said in the run's data notes and by check", async () => {
    const file = tmp.file('novol.yaml', backtestYaml('BTCUSDT', NO_VOLUME));
    const note = `BTCUSDT: ${NO_VOLUME} has no volume column: every candle's volume is 0; with backtest.volumeCapPct set no order can fill`;
    const c = await run(['check', file]);
    expect(c.code, c.all).toBe(0);
    expect(c.stdout).toContain(`note: ${note}`);
    const r = await run(['backtest', file, '--out', join(tmp.dir, 'out-novol')]);
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toContain(`data note: ${note}`);
    expect(result(join(tmp.dir, 'out-novol')).data.notes).toContain(note);
  });
});

describe('a .meta.json naming another market', { timeout: 120_000 }, () => {
  it('BTCUSDT candles configured as BTCTMN: check and backtest stop, naming both symbols and the file', async () => {
    const data = join(tmp.dir, 'data');
    mkdirSync(data);
    const gz = join(data, 'BTCUSDT-5m-freqtrade-2023.csv.gz');
    copyFileSync(join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz'), gz);
    copyFileSync(join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.meta.json'), join(data, 'BTCUSDT-5m-freqtrade-2023.meta.json'));
    const file = tmp.file(
      'wrongsym.yaml',
      `mode: backtest
strategies:
  - { name: tmn, strategy: sma-cross, markets: [BTCTMN], resolution: "300s", params: { fast: 10, slow: 30, fraction: 0.5 } }
backtest:
  data:
    - { symbol: BTCTMN, file: ${gz} }
  from: 2023-01-03
  to: 2023-01-10
  balances: { TMN: 590000000 }
journal: { file: ":memory:" }
`,
    );
    const want = `backtest.data[0].symbol: "BTCTMN" is not the market of ${gz}: its BTCUSDT-5m-freqtrade-2023.meta.json says the candles are BTCUSDT's`;
    const c = await run(['check', file]);
    expect(c.code, c.all).toBe(1);
    expect(c.all).toContain(`${want} (write symbol: BTCUSDT, or give BTCTMN a file of its own) (line 6)`);
    const b = await run(['backtest', file, '--out', join(tmp.dir, 'out-wrongsym')]);
    expect(b.code, b.all).toBe(1);
    expect(b.all).toContain(want);
    expect(b.all).not.toMatch(/orders \d+/);
    expect(existsSync(join(tmp.dir, 'out-wrongsym', 'result.json'))).toBe(false);
  });
});

describe('a freqtrade JSON row that cannot be read', { timeout: 120_000 }, () => {
  it('is named from 1 like a CSV line, with its 0-based index', async () => {
    const rows = bars.map((b) => [b[0]! * 1000, ...b.slice(1, 6)] as (number | null)[]);
    rows[300]![4] = null;
    const json = tmp.file('ft.json', JSON.stringify(rows));
    const r = await run(['backtest', tmp.file('ft.yaml', backtestYaml('BTCUSDT', json)), '--out', join(tmp.dir, 'out-ft')]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toContain(`${json}, row 301 (index 300), field close: expected a number, got null`);
  });
});
