/**
 * The public API, as an installed package's user gets it: `import 'mizan'` and its subpaths resolve
 * through package.json `exports` to the build (dist/, made by `npm run build`, which `npm test`
 * runs first), in a fresh Node process. The names each subpath exports are listed here, so a change
 * to the API is deliberate; internals cannot be imported; the withdrawal call cannot be reached
 * from what a strategy author imports.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../backtest/helpers.js';

function node(script: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8' }).trim();
}

const PUBLIC: Record<string, string[]> = {
  mizan: [
    'Atr',
    'Bar',
    'BollingerBands',
    'CandleWindow',
    'Decimal',
    'DecimalParseError',
    'Ema',
    'Macd',
    'ONE',
    'RingBuffer',
    'Rma',
    'RollingExtreme',
    'RollingStdDev',
    'RollingVwap',
    'Rsi',
    'SessionVwap',
    'Sma',
    'Stochastic',
    'TrueRange',
    'Wma',
    'ZERO',
    'cancel',
    'cancelAll',
    'cleanFloat',
    'd',
    'decimalPlaces',
    'defineStrategy',
    'describeParams',
    'dmax',
    'dmin',
    'dsum',
    'exit',
    'fitsDecimals',
    'fraction',
    'incrementFromDecimals',
    'instant',
    'limit',
    'marginAddCollateral',
    'marginBrackets',
    'marginClose',
    'marginOpen',
    'market',
    'qty',
    'quote',
    'resolveParams',
    'roundToDecimals',
    'roundToIncrement',
    'stopLimit',
    'stopMarket',
    'toDecimal',
    'toDecimalOrUndefined',
    'toPlain',
    'typicalPrice',
  ],
  'mizan/testing': ['ManualClock', 'bar', 'candle', 'drafts', 'fillEvent', 'harness', 'silentLogger', 'simpleBook'],
  'mizan/backtest': [
    'BacktestDataError',
    'CandleFileError',
    'ConfigError',
    'METRIC_DEFINITIONS',
    'RESULT_FORMAT',
    'computeMetrics',
    'detectCandleFormat',
    'expandSweep',
    'findGaps',
    'formatIssues',
    'formatMetricValue',
    'formatMetrics',
    'formatSummary',
    'importStrategy',
    'listBundledStrategies',
    'loadConfig',
    'loadStrategyInstances',
    'parseConfig',
    'parseParamRange',
    'rankRows',
    'readCandleColumns',
    'readCandleFile',
    'readCandles',
    'renderHtmlReport',
    'resultJson',
    'runBacktest',
    'runSweep',
    'sweepCsv',
  ],
  'mizan/exchange': [
    'AuthenticationError',
    'BadRequestError',
    'DEFAULT_ENGINE_OPTIONS',
    'DEFAULT_ORDER_RATE_LIMIT',
    'DEFAULT_RETRY_POLICY',
    'DEFAULT_STALE_AFTER_MS',
    'Decimal',
    'DuplicateOrderError',
    'ExchangeRejectedError',
    'ExchangeUnavailableError',
    'FinalError',
    'ForbiddenOperationError',
    'InsufficientBalanceError',
    'ManualClock',
    'MarketDataEngine',
    'MethodNotAllowedError',
    'MizanError',
    'NetworkError',
    'NotFoundError',
    'OrderBook',
    'OrderOutcomeUnknownError',
    'ParameterError',
    'PermissionDeniedError',
    'PrivatePayloadError',
    'PrivateStreamClient',
    'RateLimitError',
    'RequestTimeoutError',
    'ResponseParseError',
    'RetryableError',
    'StreamClient',
    'StreamPayloadError',
    'SystemClock',
    'ValidationError',
    'WallexRestClient',
    'd',
    'isRetryable',
    'marketChannels',
    'silentLogger',
    'validateStreamKey',
  ],
  'mizan/sim': [
    'DEFAULT_PRICES',
    'FaultInjector',
    'ManualClock',
    'SimError',
    'SimulatedExchange',
    'StreamKeys',
    'SystemClock',
    'TEST_BALANCES',
    'candleSource',
    'createDefaultSimulator',
    'createSimDesks',
    'createTestAccount',
    'createWireServer',
    'defaultMarketSpecs',
    'defaultReplaySources',
    'hftSource',
    'runSim',
    'startReplay',
  ],
};

describe('public API', () => {
  it('each subpath exports exactly its listed names', () => {
    const got = JSON.parse(
      node(
        `const out = {}; for (const s of ${JSON.stringify(Object.keys(PUBLIC))}) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out));`,
      ),
    ) as Record<string, string[]>;
    for (const [s, names] of Object.entries(PUBLIC)) expect(got[s], s).toEqual([...names].sort());
  });

  it('internals cannot be imported: only the listed subpaths are exported', () => {
    const got = JSON.parse(
      node(`
const out = {};
for (const s of ['mizan/dist/src/core/decimal.js', 'mizan/src/index.ts', 'mizan/src/exchange/rest/http.ts', 'mizan/execution', 'mizan/internal']) {
  try { await import(s); out[s] = 'imported'; } catch (e) { out[s] = e.code; }
}
console.log(JSON.stringify(out));`),
    ) as Record<string, string>;
    for (const [s, code] of Object.entries(got)) expect(code, s).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    // And none of the internal names is exported from any subpath.
    const all = Object.values(PUBLIC).flat();
    for (const internal of ['perUnit', 'isoTime', 'HttpCore', 'mapSimError', 'ExecutionEngine', 'productIsExact', 'errorForStatus', 'Journal']) {
      expect(all, internal).not.toContain(internal);
    }
  });

  it('the example strategies import only the public API (src/index.ts, what `mizan` is)', () => {
    const files = readdirSync(join(REPO, 'strategies')).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const text = readFileSync(join(REPO, 'strategies', f), 'utf8');
      const specifiers = [
        ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/g),
        ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
      ].map((m) => m[1]);
      expect(specifiers.length, f).toBeGreaterThan(0);
      for (const s of specifiers) expect(s, `${f} imports ${s}`).toBe('../src/index.js');
    }
  });

  it('the withdrawal call is not reachable from mizan or mizan/testing', () => {
    // Walks every exported value, its properties and prototypes (and what the harness hands a strategy).
    const found = node(`
const seen = new Set();
const hits = [];
function walk(v, path, depth) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v) || depth > 6) return;
  seen.add(v);
  for (const k of Reflect.ownKeys(v)) {
    const name = String(k);
    if (/withdraw/i.test(name)) hits.push(path + '.' + name);
    let x;
    try { x = Reflect.getOwnPropertyDescriptor(v, k)?.value; } catch { continue; }
    walk(x, path + '.' + name, depth + 1);
  }
  walk(Object.getPrototypeOf(v), path + '.__proto__', depth + 1);
}
const m = await import('mizan');
const t = await import('mizan/testing');
walk(m, 'mizan', 0);
walk(t, 'mizan/testing', 0);
const h = t.harness(m.defineStrategy({ name: 'x', params: {}, create: () => ({}) }), { markets: ['BTCUSDT'] });
walk(h, 'harness', 0);
const strategyHits = hits.splice(0);
// The same walk does find it where it is: the REST client of mizan/exchange.
walk(await import('mizan/exchange'), 'mizan/exchange', 0);
console.log(JSON.stringify({ strategyHits, exchangeHits: hits }));
`);
    const r = JSON.parse(found) as { strategyHits: string[]; exchangeHits: string[] };
    expect(r.strategyHits).toEqual([]);
    expect(r.exchangeHits).toContain('mizan/exchange.WallexRestClient.prototype.requestWithdrawal');
  });
});
