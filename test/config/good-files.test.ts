import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Decimal } from '../../src/core/decimal.js';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/index.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const fx = (name: string) => resolve(fixtures, name);
const base = '/srv/bot';

describe('good configuration files', () => {
  it('a paper file loads with every default filled', async () => {
    const c = await loadConfig(fx('good-paper.yaml'), { env: {}, baseDir: base });
    expect(c.mode).toBe('paper');
    expect(c.exchange).toEqual({
      simulator: true,
      baseUrl: 'https://api.wallex.ir',
      allowLiteralApiKey: false,
      stream: { transport: 'auto', protocol: 4, allowLiteralPrivateKey: false, crossedGraceMs: 1000, maxChannelsPerConnection: 50 },
      timeoutMs: 10_000,
      startupRetryMs: 60_000,
      orderRateLimit: { limit: 20, windowMs: 10_000 },
    });
    // No simulator.data: the simulator replays the data bundled with mizan (not a folder under the config's).
    expect(c.simulator).toEqual({ seed: 1, speed: 1, loop: true });
    const [a, b] = c.strategies;
    expect(a).toMatchObject({ name: 'btc-sma', clientIdPrefix: 'btcsma', account: 'main', resolution: '1', resolutionSeconds: 60 });
    expect(a?.schedule).toEqual({ cron: '0 */6 * * *', timezone: 'Asia/Tehran' });
    expect(a?.params).toEqual({ fast: 10, slow: 30 });
    expect(a?.capital?.USDT).toBeInstanceOf(Decimal);
    expect(a?.capital?.USDT?.toFixed()).toBe('1000');
    expect(a?.strategyFile).toBeUndefined();
    expect(b).toMatchObject({ resolution: '60s', resolutionSeconds: 60, strategyFile: '/srv/bot/strategies/my-grid.ts', params: {} });
    expect(b?.risk?.maxOpenOrders).toBe(10);
    expect(b?.risk?.maxPositionValue?.market?.ETHUSDT?.toFixed()).toBe('2500.5');
    expect(c.risk.limits).toEqual({ maxSlippagePct: 2, orderRate: { limit: 20, windowMs: 10_000, reserveForCancels: 4 } });
    expect(c.risk.protections).toEqual({ onBreach: 'reducing', cancelOpenOrdersOnHalt: true });
    expect(c.journal.file).toBe('/srv/bot/.mizan/journal.sqlite');
    expect(c.logging).toEqual({ level: 'info', pretty: 'auto' });
    expect(c.backtest).toBeUndefined();
    expect(c.source).toEqual({ file: fx('good-paper.yaml'), baseDir: base });
  });

  it('money round-trips exactly, never through a float', async () => {
    const c = await loadConfig(fx('good-paper.yaml'), { env: {} });
    expect(c.paper.balances.USDT?.toFixed()).toBe('0.00000001');
    expect(c.paper.balances.TMN?.toFixed()).toBe('123456789012.12345678');
  });

  it('a backtest file: range in epoch ms, data paths resolved, declared markets known', async () => {
    const c = await loadConfig(fx('good-backtest.yaml'), { env: {}, baseDir: base });
    const bt = c.backtest;
    expect(bt?.from).toBe(Date.UTC(2024, 0, 1));
    expect(bt?.to).toBe(Date.UTC(2024, 2, 1, 12));
    expect(bt?.data).toEqual([
      { symbol: 'BTCUSDT', file: '/srv/bot/data/btc.csv', fileAsWritten: 'data/btc.csv', format: 'csv' },
      { symbol: 'SOLUSDT', fetch: true },
    ]);
    const fees = bt?.fees;
    if (!fees || fees === 'account') throw new Error('expected { maker, taker } fees');
    expect(fees.maker.toFixed()).toBe('0.001');
    expect(fees.taker.toFixed()).toBe('0.0025');
    expect(bt?.markets[0]?.minQty.toFixed()).toBe('0.001');
    expect(bt).toMatchObject({ resolution: '1', slippagePct: 0.05, fillOnTouch: false, volumeCapPct: 10 });
    expect(bt?.balances.USDT?.toFixed()).toBe('5000');
    expect(c.exchange.simulator).toBe(true);
    expect(c.journal.file).toBe(':memory:');
  });

  it('a live file: the key comes from the environment, unknown markets are left to the exchange check', async () => {
    const c = await loadConfig(fx('good-live.yaml'), { env: { WALLEX_API_KEY: 'k-123', WALLEX_PROP_ABC123_KEY: 'p-456' }, baseDir: base });
    expect(c.exchange).toMatchObject({ simulator: false, apiKey: 'k-123', stream: { protocol: 3, url: 'https://api.wallex.ir' }, timeoutMs: 5000 });
    expect(c.strategies[0]).toMatchObject({ markets: ['BTCTMN', 'SHIBTMN'], account: 'prop:abc123' });
    expect(c.risk.limits.orderRate).toEqual({ limit: 18, windowMs: 10_000, reserveForCancels: 6 });
    expect(c.risk.limits.maxPositionValue?.asset?.BTC?.toFixed()).toBe('0.5');
    expect(c.risk.protections).toMatchObject({ onBreach: 'halted', cooldown: { losingTrades: 3, minutes: 60 } });
    expect(c.risk.marginMonitor?.topUpBudget?.TMN?.toFixed()).toBe('1000000');
    expect(c.journal.file).toBe('/var/lib/mizan/journal.sqlite');
    expect(c.logging.file).toBe('/srv/bot/logs/mizan.log');
    // with a market list from the exchange, the unknown one is caught
    await expect(loadConfig(fx('good-live.yaml'), { env: { WALLEX_API_KEY: 'k' }, knownMarkets: ['BTCTMN'] })).rejects.toThrow(
      /strategies\[0\]\.markets\[1\]: "SHIBTMN" is not a known market/,
    );
  });

  it('every example file references the committed JSON Schema', async () => {
    for (const f of ['good-paper.yaml', 'good-backtest.yaml', 'good-live.yaml']) {
      const first = (await readFile(fx(f), 'utf8')).split('\n')[0] ?? '';
      const m = /^# yaml-language-server: \$schema=(.+)$/.exec(first);
      expect(m?.[1]).toBeDefined();
      const schema = JSON.parse(await readFile(resolve(fixtures, m?.[1] ?? ''), 'utf8')) as { title: string };
      expect(schema.title).toBe('mizan configuration');
    }
  });
});

describe('parseConfig details', () => {
  const strat = 'strategies: [{ name: a, strategy: s, markets: [BTCUSDT] }]\n';

  it('reports every problem at once, in file order, with lines', () => {
    const text = `mode: paper\nexchange:\n  timeoutMs: -1\n  stream: { protocol: 2 }\n${strat}paper: { balances: { USDT: -1, btc: 1 } }\nextra: 1\n`;
    let err: unknown;
    try {
      parseConfig(text, { env: {} });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const issues = (err as ConfigError).issues;
    expect(issues.map((i) => [i.path, i.line])).toEqual([
      ['exchange.timeoutMs', 3],
      ['exchange.stream.protocol', 4],
      ['paper.balances.USDT', 6],
      ['paper.balances.btc', 6],
      ['extra', 7],
    ]);
    expect((err as ConfigError).message).toMatch(/^config: 5 problems\n {2}- exchange\.timeoutMs: -1 must be a whole number from 1 to 600000 \(line 3\)/);
    expect(issues[3]?.message).toMatch(/key "btc" is not a symbol/);
    expect(issues[4]?.message).toMatch(/unknown key "extra" \(allowed keys: mode, exchange, simulator, strategies/);
  });

  it('orderRate.reserveForCancels defaults to 4, or limit − 1 when the limit is 4 or less (a default never makes a limit invalid)', () => {
    const rate = (yaml: string) => parseConfig(`mode: paper\n${strat}risk: { limits: { orderRate: ${yaml} } }\n`, { env: {} }).risk.limits.orderRate;
    expect(rate('{ limit: 3 }')).toEqual({ limit: 3, windowMs: 10_000, reserveForCancels: 2 });
    expect(rate('{ limit: 1 }')).toEqual({ limit: 1, windowMs: 10_000, reserveForCancels: 0 });
    expect(rate('{ limit: 5 }')).toEqual({ limit: 5, windowMs: 10_000, reserveForCancels: 4 });
    expect(rate('{ limit: 3, reserveForCancels: 0 }')).toEqual({ limit: 3, windowMs: 10_000, reserveForCancels: 0 });
    expect(rate('{ limit: 20, reserveForCancels: 19 }')).toEqual({ limit: 20, windowMs: 10_000, reserveForCancels: 19 });
  });

  it('substitutes ${ENV} anywhere and shows the reference, not the value, when the value is bad', () => {
    const c = parseConfig(`mode: paper\njournal: { file: "\${DIR}/j.sqlite" }\nlogging: { file: "$\${LITERAL}" }\n${strat}`, { env: { DIR: '/data' } });
    expect(c.journal.file).toBe('/data/j.sqlite');
    expect(c.logging.file).toMatch(/\$\{LITERAL\}$/);
    expect(() => parseConfig(`mode: paper\nexchange: { baseUrl: "\${URL}" }\n${strat}`, { env: { URL: 'not-a-url-private' } })).toThrow(
      /exchange\.baseUrl: "\$\{URL\}" is not an http\(s\) URL/,
    );
    try {
      parseConfig(`mode: paper\nexchange: { baseUrl: "\${URL}" }\n${strat}`, { env: { URL: 'not-a-url-private' } });
    } catch (e) {
      expect(JSON.stringify((e as ConfigError).issues) + (e as Error).message).not.toContain('not-a-url-private');
    }
  });

  it('a key in the environment that is empty counts as missing; a bad key value is never printed', () => {
    expect(() => parseConfig(`mode: live\nexchange: { apiKey: "\${K}" }\n${strat}`, { env: { K: '' } })).toThrow(/environment variable K is not set/);
    const text = `mode: paper\nexchange: { apiKey: 12345678 }\n${strat}`;
    try {
      parseConfig(text, { env: {} });
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).not.toContain('12345678');
      expect((e as Error).message).toContain('exchange.apiKey');
    }
  });

  it('clashing client-id prefixes and backtest markets without data are caught', () => {
    const text = `mode: backtest
strategies:
  - { name: a-b, strategy: s, markets: [BTCUSDT] }
  - { name: a_b, strategy: s, markets: [ETHUSDT, ETHUSDT] }
backtest: { data: [{ symbol: BTCUSDT, file: x.csv }], from: 1700000000, to: 1700086400 }
`;
    const issues = (() => {
      try {
        parseConfig(text, { env: {} });
        return [];
      } catch (e) {
        return (e as ConfigError).issues;
      }
    })();
    expect(issues.map((i) => i.path)).toEqual(['strategies[1].name', 'strategies[1].markets[0]', 'strategies[1].markets[1]', 'strategies[1].markets[1]']);
    expect(issues[0]?.message).toMatch(/same client-id prefix ab as strategies\[0\]/);
    expect(issues[1]?.message).toMatch(/"ETHUSDT" has no backtest data/);
    expect(issues.some((i) => /listed twice/.test(i.message))).toBe(true);
  });

  it('margin monitor thresholds must be ordered, custom markets must be base + quote', () => {
    const text = `mode: backtest
${strat}risk: { marginMonitor: { warnAtPct: 5, topUpAtPct: 8, closeAtPct: 1 } }
backtest:
  data: [{ symbol: BTCUSDT, fetch: true }]
  from: 2024-01-01
  to: 2024-02-01
  markets: [{ symbol: XYZUSDT, base: XY, quote: USDT, pricePrecision: 2, quantityPrecision: 2, minQty: 1, minNotional: 0, makerFee: 0, takerFee: 0.2 }]
`;
    expect(() => parseConfig(text, { env: {} })).toThrow(ConfigError);
    try {
      parseConfig(text, { env: {} });
    } catch (e) {
      const byPath = Object.fromEntries((e as ConfigError).issues.map((i) => [i.path, i.message]));
      expect(byPath['risk.marginMonitor.topUpAtPct']).toMatch(/8 must be less than warnAtPct \(5\)/);
      expect(byPath['backtest.markets[0].symbol']).toMatch(/"XYZUSDT" must be base \+ quote \(XYUSDT\)/);
      expect(byPath['backtest.markets[0].takerFee']).toMatch(/0\.2 must be from 0 to 0\.1/);
    }
  });

  it('an empty section (null) counts as not written', () => {
    const c = parseConfig(`mode: paper\nexchange:\nrisk:\n  limits:\n${strat}`, { env: {} });
    expect(c.exchange.timeoutMs).toBe(10_000);
    expect(c.risk.limits.maxSlippagePct).toBe(2);
    expect(() => parseConfig('mode: paper\nstrategies:\n', { env: {} })).toThrow(/strategies: is required/);
  });

  it('rejects a file that is not a mapping', () => {
    expect(() => parseConfig('- a\n- b\n', { env: {} })).toThrow(/must be a YAML mapping/);
  });
});
