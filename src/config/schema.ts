/**
 * The configuration's definitions (zod 4). The same definitions validate files and generate the
 * JSON Schema in config/schema.json (io: 'input', so editors see what may be written).
 */
import * as z from 'zod';
import type { Decimal } from 'decimal.js';
import { cronExpr, filePath, instant, money, pct, positiveInt, resolution, symbol, symbolMap, timeZone } from './fields.js';
import { riskSchema, strategyRiskLimitsSchema } from './schema-risk.js';
import { notificationsSchema } from './schema-notify.js';
import { serverSchema } from './schema-server.js';
import { DEFAULT_JOURNAL_FILE } from './defaults.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { accountsSchema, type AccountKeySource } from './accounts.js';

export const MODES = ['live', 'paper', 'backtest'] as const;
export type Mode = (typeof MODES)[number];

export const DEFAULT_BASE_URL = 'https://api.wallex.ir';

const httpUrl = (description: string) =>
  z
    .string({ error: 'is not a URL' })
    .refine((s) => /^https?:\/\/[^\s/]+/.test(s) && URL.canParse(s), { error: 'is not an http(s) URL (e.g. https://api.wallex.ir)' })
    .describe(description);

const bool = (description: string) => z.boolean({ error: 'is not true or false' }).describe(description);

const fees = z
  .strictObject({
    maker: money({ allowZero: true, max: '0.1', description: 'Maker fee as a fraction (0.002 = 0.2%)' }),
    taker: money({ allowZero: true, max: '0.1', description: 'Taker fee as a fraction (0.0025 = 0.25%)' }),
  })
  .describe('Fees as fractions of the traded value');

const exchangeSchema = z.strictObject({
  simulator: bool('Use the embedded simulator (default for paper and backtest; must be false for live)').optional(),
  baseUrl: httpUrl('REST base URL of the exchange').default(DEFAULT_BASE_URL),
  apiKey: z
    .string({ error: 'is not a string (write it as ${ENV_NAME})' })
    .min(1, { error: 'must not be empty' })
    .optional()
    .describe('API key as an environment reference, e.g. ${WALLEX_API_KEY}'),
  allowLiteralApiKey: bool('Accept an API key written literally in the file (not recommended)').default(false),
  stream: z
    .strictObject({
      transport: z
        .enum(['auto', 'ws', 'socketio'], { error: 'is not a stream transport (allowed: auto, ws, socketio)' })
        .default('auto')
        .describe(
          'Route of the stream: ws (the plain WebSocket at /ws the exchange documents now), socketio (socket.io at /socket.io, with `protocol`), or auto (ws first, socket.io when /ws cannot connect; the choice is logged)',
        ),
      protocol: z
        .literal([3, 4], { error: 'is not a stream protocol (allowed: 3 = socket.io v2 / Engine.IO 3, 4 = socket.io v4)' })
        .default(4)
        .describe(
          "Engine.IO protocol of the socket.io stream (transport socketio, or auto falling back): 4 (socket.io v4 client, the stream client's default) or 3 (the v2.5 client the exchange documents)",
        ),
      url: httpUrl('Stream URL (defaults to baseUrl)').optional(),
      privateKey: z
        .string({ error: 'is not a string (write it as ${ENV_NAME})' })
        .min(1, { error: 'must not be empty' })
        .optional()
        .describe(
          'Stream key of the private channel (order updates, fills, balances), as an environment reference, e.g. ${WALLEX_STREAM_KEY}. The exchange hands it to a web login, not to an API key; live mode only. Without it orders are tracked by polling alone',
        ),
      allowLiteralPrivateKey: bool('Accept a stream key written literally in the file (not recommended)').default(false),
      crossedGraceMs: z
        .number({ error: 'is not a whole number of milliseconds' })
        .int({ error: 'is not a whole number of milliseconds' })
        .min(0, { error: 'must be a whole number from 0 to 60000' })
        .max(60_000, { error: 'must be a whole number from 0 to 60000' })
        .default(1_000)
        .describe(
          "The two sides of a book arrive as separate snapshots: a side that crosses the other side's older snapshot is a transient. The book is reported crossed (unhealthy, orders denied) only when the other side's next update leaves it crossed or it stays crossed this long (ms). 0: every cross at once",
        ),
      maxChannelsPerConnection: z
        .number({ error: 'is not a whole number' })
        .int({ error: 'is not a whole number' })
        .min(1, { error: 'must be a whole number from 1 to 1000' })
        .max(1_000, { error: 'must be a whole number from 1 to 1000' })
        .default(50)
        .describe(
          'Channels (depth sides, trades, stats, the private channel) on one stream connection; more open another connection. The exchange documents "at most 50 messages per channel", read here as 50 channels per connection; lower it if the exchange drops subscriptions',
        ),
    })
    .prefault({}),
  timeoutMs: positiveInt('REST request timeout in milliseconds', 600_000).default(10_000),
  startupRetryMs: z
    .number({ error: 'is not a whole number of milliseconds' })
    .int({ error: 'is not a whole number of milliseconds' })
    .min(0, { error: 'must be a whole number from 0 to 3600000' })
    .max(3_600_000, { error: 'must be a whole number from 0 to 3600000' })
    .default(60_000)
    .describe(
      "How long the start may retry the exchange's reads (markets, fees, balances, open orders, recovery lookups) that failed with a 429, a 5xx, a timeout or no connection, with backoff and the exchange's Retry-After, before the bot gives up (ms). A refused key (401, 403) or a refused request fails at once. 0: no start-up retries",
    ),
  orderRateLimit: z
    .strictObject({
      limit: positiveInt('Order requests per window', 10_000).default(20),
      windowMs: positiveInt('Window in milliseconds', 86_400_000).default(10_000),
    })
    .prefault({})
    .describe('The exchange limit on order placement (20 per 10 s)'),
});

const simulatorSchema = z.strictObject({
  seed: z.number({ error: 'is not a whole number' }).int({ error: 'is not a whole number' }).default(1).describe('Random seed'),
  speed: z.number({ error: 'is not a number' }).gt(0, { error: 'must be greater than 0' }).default(1).describe('Replay speed (1 = real time)'),
  data: filePath("Market data the simulator replays (a folder laid out as mizan's backtest/data); default: the data bundled with mizan").optional(),
  loop: bool('Start the replay again at the end').default(true),
});

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
const STRATEGY_RE = /^([A-Za-z0-9_-]+|.+\.(ts|js|mjs|mts))$/;
const ACCOUNT_RE = /^(main|prop:[A-Za-z0-9_-]+)$/;

const strategySchema = z.strictObject({
  name: z
    .string({ error: 'is not a string' })
    .regex(NAME_RE, { error: 'is not a valid name (1 to 32 letters, digits, - and _, starting with a letter or digit)' })
    .describe('Unique instance name, used as the client-id prefix'),
  strategy: z
    .string({ error: 'is not a string' })
    .regex(STRATEGY_RE, { error: 'is not a strategy (a module name in strategies/, or a path to a .ts or .js file)' })
    .describe('Module name in strategies/ or a path to a .ts/.js file'),
  markets: z.array(symbol(), { error: 'is not a list of market symbols' }).min(1, { error: 'must list at least one market' }),
  resolution: resolution().default('60'),
  candles: z
    .array(resolution(), { error: 'is not a list of resolutions (e.g. ["1", "450s"])' })
    .optional()
    .describe(
      'Other candle resolutions the strategy reads with ctx.candles(symbol, seconds), in the notation of resolution (e.g. ["1", "450s"]): built live from the trade stream, in a backtest from its data. A multiple of resolution needs no entry',
    ),
  params: z.record(z.string(), z.unknown(), { error: 'is not a map of parameters' }).default({}).describe("Checked against the strategy's declared params"),
  schedule: z
    .strictObject({
      cron: cronExpr(),
      timezone: timeZone().default('UTC'),
    })
    .optional()
    .describe(
      "Call the strategy's onSchedule on this cron schedule (its candle handlers run on every candle either way); refused for a strategy without onSchedule",
    ),
  capital: symbolMap(money())
    .optional()
    .describe(
      "Per asset: the most this strategy may commit (what it spends: the quote of a buy or a margin open, the base of a sell); each asset must be the base or the quote of one of the strategy's markets",
    ),
  risk: strategyRiskLimitsSchema.optional().describe('Per-strategy limits (same keys as risk.limits)'),
  account: z
    .string({ error: 'is not a string' })
    .regex(ACCOUNT_RE, { error: 'is not an account (allowed: "main" or "prop:<clientId>")' })
    .default(MAIN_ACCOUNT)
    .describe('main, or prop:<clientId> for a trading-credit sub-account'),
});

const paperSchema = z.strictObject({
  balances: symbolMap(money({ allowZero: true }))
    .prefault({ USDT: '10000', TMN: '500000000' })
    .describe('Starting balances of the paper account'),
  fees: fees.optional().describe("Override the markets' fees"),
});

export const WEEKDAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

const candleEntry = z
  .strictObject({
    kind: z.literal('candles', { error: 'is not "candles" or "book"' }).optional().describe('candles (the default) or book (a recording)'),
    symbol: symbol(),
    file: filePath('Candle file (CSV, JSON)').optional(),
    fetch: bool('Download from the exchange and cache').optional(),
    format: z
      .string({ error: 'is not a string' })
      .regex(/^[a-z0-9-]+$/, { error: 'is not a format name (lower-case, e.g. csv)' })
      .optional(),
    weekdays: z
      .array(z.enum(WEEKDAY_NAMES, { error: `is not a weekday (allowed: ${WEEKDAY_NAMES.join(', ')})` }), { error: 'is not a list of weekdays' })
      .min(1, { error: 'must list at least one weekday' })
      .optional()
      .describe(
        'UTC weekdays the market trades (e.g. [mon, tue, wed, thu, fri]); candles missing on the other days are not gaps. Default: detected (weekdays without any candle in three weeks or more of data are taken as closed)',
      ),
  })
  .refine((e) => (e.file !== undefined) !== (e.fetch === true), {
    error: 'needs exactly one source: file: <path> or fetch: true',
  });

/** A recording of `mizan record` replayed through the market-data engine (docs/book-backtests.md). */
const bookEntry = z.strictObject({
  kind: z.literal('book'),
  dir: filePath('Recording directory (what `mizan record --out` wrote), or a folder of hftbacktest captures (format: hftbacktest)'),
  format: z
    .enum(['mizan', 'hftbacktest'], { error: 'is not a recording format (allowed: mizan, hftbacktest)' })
    .default('mizan')
    .describe(
      "mizan: a recording of mizan record; hftbacktest: hftbacktest's L2 captures (.gz files, one market), such as the bundled backtest/data/hftbacktest/spot",
    ),
  markets: z
    .array(symbol(), { error: 'is not a list of markets' })
    .min(1, { error: 'must list at least one market' })
    .optional()
    .describe("Markets of the recording to replay (default: the strategies' markets)"),
});

/** A `backtest.data` entry: candles (no `kind`, or `kind: candles`) or a recording (`kind: book`). */
const dataEntry = z.discriminatedUnion('kind', [candleEntry, bookEntry], { error: 'is not a data kind (allowed: candles, book)' });

/** How a book backtest fills orders (docs/book-backtests.md). */
const bookFillSchema = z.strictObject({
  queueModel: z
    .enum(['risk-averse', 'prob'], { error: 'is not a queue model (allowed: risk-averse, prob)' })
    .default('risk-averse')
    .describe('How cancellations at your price move your place in the queue: risk-averse (they are behind you) or prob (split front and back)'),
  queuePower: z
    .number({ error: 'is not a number' })
    .positive({ error: 'must be above 0' })
    .default(1)
    .describe('Exponent of the prob model (1: in proportion to the quantity ahead and behind)'),
  entryLatencyMs: z
    .number({ error: 'is not a number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds (the simulated clock counts whole milliseconds)' })
    .min(0, { error: 'must be 0 or more' })
    .default(50)
    .describe('Milliseconds from sending an order to its arrival at the exchange (its answer comes then)'),
  cancelLatencyMs: z
    .number({ error: 'is not a number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds (the simulated clock counts whole milliseconds)' })
    .min(0, { error: 'must be 0 or more' })
    .default(50)
    .describe('Milliseconds from sending a cancel to its effect at the exchange: a fill before then wins the race'),
});

const decimals = (description: string) =>
  z
    .number({ error: 'is not a whole number' })
    .int({ error: 'is not a whole number' })
    .min(0, { error: 'must be a whole number from 0 to 18' })
    .max(18, { error: 'must be a whole number from 0 to 18' })
    .describe(description);

const marketDeclSchema = z.strictObject({
  symbol: symbol(),
  base: symbol(),
  quote: symbol(),
  pricePrecision: decimals('Decimal places of the price'),
  quantityPrecision: decimals('Decimal places of the quantity'),
  minQty: money(),
  maxQty: money().optional(),
  minNotional: money({ allowZero: true }),
  makerFee: money({ allowZero: true, max: '0.1' }),
  takerFee: money({ allowZero: true, max: '0.1' }),
});

const backtestSchema = z
  .strictObject({
    data: z.array(dataEntry, { error: 'is not a list of data sources' }).min(1, { error: 'must list at least one data source' }),
    from: instant('Start (inclusive)'),
    to: instant('End (exclusive)'),
    resolution: resolution().optional(),
    balances: symbolMap(money({ allowZero: true })).prefault({ USDT: '10000' }),
    fees: z
      .union([fees, z.literal('account')], { error: 'is not { maker, taker } or account' })
      .optional()
      .describe(
        "Fees of every market ({ maker, taker }), or account: the account's own rates per market from GET /v1/account/fee (needs exchange.apiKey); default: each market's listed rates",
      ),
    slippagePct: z.number({ error: 'is not a number' }).min(0, { error: 'must be from 0 to 100' }).max(100, { error: 'must be from 0 to 100' }).default(0),
    fillOnTouch: bool('Fill a limit order when the price touches it (else it must trade through)').default(false),
    volumeCapPct: pct("Largest share of a candle's volume one order may fill, in %").optional(),
    markets: z.array(marketDeclSchema).default([]).describe('Markets not in the built-in catalog'),
    allowErrors: bool('Exit with code 0 even when a strategy handler threw (the errors are still counted and shown); default: exit code 1').default(false),
    book: bookFillSchema.prefault({}).describe('The fill model of book backtests (data entries of kind book)'),
    closeAtEnd: bool(
      'At the last candle, cancel the open orders and sell (close) what each strategy still holds at that close ± slippage with the taker fee, instead of valuing it as an `open at end` trade',
    ).default(false),
  })
  .superRefine((b, ctx) => {
    if (b.from >= b.to) ctx.addIssue({ code: 'custom', path: ['to'], message: `must be after from (${new Date(b.from).toISOString()})` });
  });

/** `journal.file` when a config does not set it. */
export { DEFAULT_JOURNAL_FILE };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const configSchema = z.strictObject({
  mode: z.enum(MODES, { error: 'is not a mode (allowed: "live", "paper", "backtest")' }).describe('live, paper or backtest'),
  exchange: exchangeSchema.prefault({}),
  simulator: simulatorSchema.prefault({}),
  strategies: z.array(strategySchema, { error: 'is not a list of strategies' }).min(1, { error: 'must list at least one strategy' }),
  accounts: accountsSchema,
  reference: z
    .string()
    .regex(/^[A-Z0-9]{2,12}$/, { error: 'is not an asset code (upper-case letters and digits, e.g. USDT)' })
    .optional()
    .describe(
      'The asset equity, drawdown and PnL are counted in, in every mode; default: USDT when a market of the run (traded, or a backtest data series) is quoted in USDT, else the quote asset of the first',
    ),
  risk: riskSchema.prefault({}),
  paper: paperSchema.prefault({}),
  backtest: backtestSchema.optional(),
  journal: z.strictObject({ file: filePath('SQLite journal file').default(DEFAULT_JOURNAL_FILE) }).prefault({}),
  server: serverSchema.optional(),
  notifications: notificationsSchema.optional(),
  logging: z
    .strictObject({
      level: z.enum(LOG_LEVELS, { error: `is not a log level (allowed: ${LOG_LEVELS.join(', ')})` }).default('info'),
      pretty: z.union([z.literal('auto'), z.boolean()], { error: 'is not allowed (allowed: auto, true, false)' }).default('auto'),
      file: filePath('Also write JSON logs to this file').optional(),
    })
    .prefault({}),
});

export type ParsedConfig = z.output<typeof configSchema>;
type ParsedStrategy = z.output<typeof strategySchema>;
export type ExchangeConfig = Omit<ParsedConfig['exchange'], 'simulator'> & { simulator: boolean };
export type BacktestConfig = z.output<typeof backtestSchema>;
export type MarketDecl = z.output<typeof marketDeclSchema>;

export interface StrategyConfig extends ParsedStrategy {
  /** The executor's client-id prefix for this name (letters and digits, at most 16): unique per file. */
  clientIdPrefix: string;
  /** Absolute path when `strategy` is a file, undefined for a module in strategies/. */
  strategyFile?: string;
  resolutionSeconds: number;
  /** The declared `candles` in seconds (the strategy's own resolution left out, no repeats). */
  candleSeconds?: number[];
}

type DataEntry = BacktestConfig['data'][number];
/** A recording entry of `backtest.data` (kind: book), its `dir` made absolute. */
type RecordingEntry = Extract<DataEntry, { kind: 'book' }>;

/** A candle entry of `backtest.data` after loading: `file` made absolute, `fileAsWritten` the relative path it came from. */
type BacktestDataEntry = Exclude<DataEntry, { kind: 'book' }> & {
  /** The path as written in the config when it was relative (what `mizan backtest --data <dir>` resolves against its dir). */
  fileAsWritten?: string;
};

/** The account's maker and taker rates per market (what `backtest.fees: account` resolves to). */
export type AccountFeeRates = Record<string, { maker: Decimal; taker: Decimal }>;

export interface MizanConfig extends Omit<ParsedConfig, 'exchange' | 'strategies' | 'backtest' | 'accounts'> {
  exchange: ExchangeConfig;
  /** Trading-credit accounts and their own API keys (read from the environment). */
  accounts: Record<string, AccountKeySource>;
  strategies: StrategyConfig[];
  backtest?: Omit<BacktestConfig, 'data'> & {
    /** The candle entries of `backtest.data`. */
    data: BacktestDataEntry[];
    /** The recording entries of `backtest.data` (kind: book): a book backtest (backtest/book/run.ts). */
    recordings: RecordingEntry[];
    /** With `fees: account`: the rates read from the account (GET /v1/account/fee) before the run. */
    accountFees?: AccountFeeRates;
  };
  /** Where the file came from; relative paths in it were resolved against baseDir. */
  source: { file?: string; baseDir: string };
}
