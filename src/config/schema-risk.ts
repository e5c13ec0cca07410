/**
 * Risk section: limits (global, and the same shape per strategy), protections (circuit breakers)
 * and the margin monitor. Percentages are plain numbers (2 means 2%); amounts are Decimal.
 */
import * as z from 'zod';
import { money, pct, positiveInt, symbolMap } from './fields.js';

const orderRateShape = {
  limit: positiveInt('Orders allowed per window (the exchange allows 20 per 10 s)', 10_000),
  windowMs: positiveInt('Window length in milliseconds', 86_400_000),
  reserveForCancels: z
    .number({ error: 'is not a whole number' })
    .int({ error: 'is not a whole number' })
    .min(0, { error: 'must be 0 or more' })
    .describe(
      'Slots of the window kept free for cancels, at most limit − 1; default (risk.limits) 4, or limit − 1 when the limit is 4 or less; default per strategy 0',
    ),
};

/** `risk.limits.orderRate.reserveForCancels` when the file does not set it (at most limit − 1). */
const DEFAULT_RESERVE_FOR_CANCELS = 4;

/** A reserve of the whole window (or more) would leave no slot for a new order: the order-rate budget refuses it, so the file is refused at its line. */
function reserveBelowLimit(o: { limit: number; reserveForCancels?: number | undefined }, ctx: z.RefinementCtx): void {
  if (o.reserveForCancels !== undefined && o.reserveForCancels >= o.limit) {
    ctx.addIssue({
      code: 'custom',
      path: ['reserveForCancels'],
      message: `must be less than limit (${o.limit}): at most ${o.limit - 1}`,
      input: o.reserveForCancels,
    });
  }
}

const positionValue = z
  .strictObject({
    market: symbolMap(money()).optional().describe('Per market symbol: the most position value, in the quote asset'),
    asset: symbolMap(money()).optional().describe('Per asset: the most quantity held'),
    total: symbolMap(money()).optional().describe('Per quote asset: the most value over all markets quoted in it'),
  })
  .describe('Position value caps, as maps');

function limitsShape(withDefaults: boolean) {
  // The global default never makes a valid limit invalid: `{ limit: 3 }` keeps 2 slots for cancels, not 4.
  const orderRate = z
    .strictObject({
      limit: orderRateShape.limit.default(20),
      windowMs: orderRateShape.windowMs.default(10_000),
      reserveForCancels: orderRateShape.reserveForCancels.optional(),
    })
    .superRefine(reserveBelowLimit)
    .transform((o) => ({ ...o, reserveForCancels: o.reserveForCancels ?? Math.min(DEFAULT_RESERVE_FOR_CANCELS, o.limit - 1) }));
  const ownOrderRate = z
    .strictObject({
      limit: orderRateShape.limit,
      windowMs: orderRateShape.windowMs,
      reserveForCancels: orderRateShape.reserveForCancels.optional(),
    })
    .superRefine(reserveBelowLimit);
  const slippage = pct(
    'Largest slippage of a market order from the reference price, in %; also bounds the price of a marginClose without a price (at most 4 %)',
  );
  return {
    maxPriceDeviationPct: pct("Largest distance of a limit price from the book's mid (a stop-limit's from its stop price), in %").optional(),
    maxSlippagePct: withDefaults ? slippage.default(2) : slippage.optional(),
    maxOpenOrders: positiveInt('Most open orders in total').optional(),
    maxOpenOrdersPerMarket: positiveInt('Most open orders per market').optional(),
    maxPositionValue: positionValue.optional(),
    maxRiskCoef: money({ description: 'Highest margin risk coefficient (leverage) allowed' }).optional(),
    maxTotalLoan: symbolMap(money()).optional().describe('Per asset: the most margin loan outstanding'),
    minCallDistancePct: pct('Smallest distance of the price from a margin call price, in %').optional(),
    orderRate: withDefaults ? orderRate.prefault({}) : ownOrderRate.optional(),
  };
}

/** Global limits: defaults filled. */
const riskLimitsSchema = z.strictObject(limitsShape(true));
/** Per-strategy limits: same keys, nothing filled (unset means the global limit applies). */
export const strategyRiskLimitsSchema = z.strictObject(limitsShape(false));

const protectionsSchema = z.strictObject({
  dailyLossLimitPct: pct('Stop when the day loses this % of the day-start equity').optional(),
  maxDrawdownPct: pct('Stop when equity falls this % below its peak').optional(),
  cooldown: z
    .strictObject({
      losingTrades: positiveInt('Losing trades in a row'),
      minutes: positiveInt('Pause length in minutes'),
    })
    .optional()
    .describe('Pause a strategy after losing trades in a row'),
  stoplossGuard: z
    .strictObject({
      trades: positiveInt('Stop-loss exits'),
      windowMinutes: positiveInt('Within this many minutes'),
    })
    .optional()
    .describe("Stop trading after this many stop-loss exits within a window (a bracket's stop leg, or a sell tagged stop_loss)"),
  onBreach: z
    .enum(['reducing', 'halted'], { error: 'is not allowed (allowed: "reducing", "halted")' })
    .default('reducing')
    .describe('State after a breach: reducing (only orders that reduce exposure) or halted (nothing)'),
  cancelOpenOrdersOnHalt: z.boolean({ error: 'is not true or false' }).default(true),
});

const marginMonitorSchema = z.strictObject({
  warnAtPct: pct('Warn when the price is within this % of the call price').optional(),
  topUpAtPct: pct('Add collateral when the price is within this % of the call price').optional(),
  topUpBudget: symbolMap(money())
    .optional()
    .describe(
      "Per asset: the most collateral the monitor adds to the positions not ended yet; a top-up counts for its position's whole life, restarts included",
    ),
  closeAtPct: pct('Close the position when the price is within this % of the call price').optional(),
});

export const riskSchema = z.strictObject({
  limits: riskLimitsSchema.prefault({}),
  protections: protectionsSchema.prefault({}),
  marginMonitor: marginMonitorSchema.optional(),
});

export type RiskLimits = z.output<typeof riskLimitsSchema>;
export type StrategyRiskLimits = z.output<typeof strategyRiskLimitsSchema>;
export type Protections = z.output<typeof protectionsSchema>;
export type MarginMonitorConfig = z.output<typeof marginMonitorSchema>;
export type RiskConfig = z.output<typeof riskSchema>;
