/**
 * The queue's pieces without a server: the --queue URL (errors name the option and the value, the
 * password never shown), the config as it travels (secrets left out, Decimals kept), and the code
 * check (both hashes named).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/load.js';
import { parseQueueUrl, redactUrl } from '../../src/queue/connection.js';
import { codeMismatch, configFromWire, configToWire, mizanCode, packColumns, strategyCode, unpackColumns } from '../../src/queue/wire.js';
import { REPO } from '../e2e/cli.js';

describe('--queue URL', () => {
  it('reads host, port, db, user, password and TLS', () => {
    const q = parseQueueUrl('rediss://mizan:p%40ss-w0rd@redis.lan:6380/3');
    expect(q.options).toMatchObject({
      host: 'redis.lan',
      port: 6380,
      db: 3,
      username: 'mizan',
      password: 'p@ss-w0rd',
      tls: { servername: 'redis.lan' },
      maxRetriesPerRequest: null,
    });
    expect(q.shown).toBe('rediss://mizan:***@redis.lan:6380/3');
    expect(parseQueueUrl('redis://127.0.0.1:6379').options).toMatchObject({ host: '127.0.0.1', port: 6379, db: 0 });
    expect(parseQueueUrl('redis://127.0.0.1:6379').options.tls).toBeUndefined();
    expect(parseQueueUrl('rediss://127.0.0.1:6380').options.tls).toEqual({});
    expect(redactUrl('redis://:only-a-password@h:1')).toBe('redis://:***@h:1');
  });

  it('refuses what it cannot use, naming the option and the value without the password', () => {
    expect(() => parseQueueUrl('http://h:1')).toThrow('--queue "http://h:1": the scheme http is not redis or rediss');
    expect(() => parseQueueUrl('redis://h')).toThrow('--queue "redis://h": no port');
    expect(() => parseQueueUrl('redis://h:1/x')).toThrow('--queue "redis://h:1/x": the database "x" is not a number');
    expect(() => parseQueueUrl('localhost:6379')).toThrow(/--queue "localhost:6379": the scheme localhost is not redis/);
    expect(() => parseQueueUrl('nonsense')).toThrow('--queue "nonsense": not a URL');
    let msg = '';
    try {
      parseQueueUrl('redis://u:topsecret@h:1/zz');
    } catch (err) {
      msg = (err as Error).message;
    }
    expect(msg).toContain('redis://u:***@h:1/zz');
    expect(msg).not.toContain('topsecret');
  });
});

describe('what travels with a trial', () => {
  it('the config: no API key, stream key or server section; Decimals come back as Decimals', () => {
    const config = parseConfig(
      `mode: paper
exchange: { apiKey: "\${K}", stream: { privateKey: "\${P}" } }
strategies:
  - { name: mine, strategy: ./lib/mine.ts, markets: [BTCUSDT], resolution: "300s", params: { fast: 5 } }
backtest:
  data: [ { symbol: BTCUSDT, file: data.csv } ]
  from: 2023-01-01
  to: 2023-02-01
  balances: { USDT: "10000.5" }
server: { token: "\${T}" }
`,
      { env: { K: 'k'.repeat(64), P: 'p'.repeat(64), T: 't'.repeat(32) }, baseDir: '/coordinator/configs' },
    );
    const wire = configToWire(config);
    expect(wire).not.toContain('kkkkkk');
    expect(wire).not.toContain('pppppp');
    expect(wire).not.toContain('tttttt');
    expect(wire).not.toContain('strategyFile');
    const back = configFromWire(wire, '/worker/strategies');
    expect(back.strategies[0]!.strategyFile).toBe('/worker/strategies/lib/mine.ts');
    expect(back.backtest!.balances.USDT!.toFixed()).toBe('10000.5');
    expect(back.backtest!.balances.USDT!.constructor.name).toBe(config.backtest!.balances.USDT!.constructor.name);
    expect(back.exchange.apiKey).toBeUndefined();
    expect(back.server).toBeUndefined();
  });

  it('the candles: the same columns give the same bytes and hash', () => {
    const cols = {
      BTCUSDT: {
        cols: {
          length: 2,
          time: new Float64Array([1, 2]),
          open: new Float64Array([3, 4]),
          high: new Float64Array([5, 6]),
          low: new Float64Array([1, 2]),
          close: new Float64Array([3, 4]),
          volume: new Float64Array([0, 1]),
        },
        resSec: 60,
      },
    };
    const a = packColumns(cols);
    const b = packColumns(structuredClone(cols));
    expect(a.hash).toBe(b.hash);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(unpackColumns(a.buf)).toEqual(cols);
  });

  it('the code: a strategy or mizan that differs is named with both hashes', async () => {
    const config = await loadConfig(join(REPO, 'config/backtest-sweep.yaml'));
    const mine = { mizan: mizanCode(), strategies: strategyCode(config) };
    expect(mine.strategies).toEqual([{ name: 'sma', strategy: 'sma-cross', hash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown as string }]);
    expect(codeMismatch(mine, mine)).toBeUndefined();
    const other = { ...mine, strategies: [{ ...mine.strategies[0]!, hash: 'a'.repeat(64) }] };
    expect(codeMismatch(other, mine)).toBe(
      `strategy sma (sma-cross) is ${mine.strategies[0]!.hash.slice(0, 16)} on this worker, ${'a'.repeat(16)} on the coordinator`,
    );
    const older = { ...mine, mizan: { version: '0.0.9', hash: 'b'.repeat(64) } };
    expect(codeMismatch(older, mine)).toBe(
      `mizan ${mine.mizan.version} (code ${mine.mizan.hash.slice(0, 16)}) on this worker, mizan 0.0.9 (code ${'b'.repeat(16)}) on the coordinator`,
    );
  });
});
