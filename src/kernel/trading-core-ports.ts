/**
 * The ports of the trading core (trading-core.ts): what a mode hands it to run strategies. The
 * strategy instances with their params, markets and account; the risk check (RiskPort, given by
 * risk-port.ts) and the decision journal; and the whole set of dependencies (venue, books, clock,
 * portfolio, engine). Types only, kept apart from the core's pipeline so a mode (or a test) can read
 * what it must supply without reading how the core runs.
 */
import type { Instrument } from '../core/instrument.js';
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { Intent, Verdict } from '../core/intents.js';
import type { Logger } from '../core/logger.js';
import type { MarginPosition, MarginRequest } from '../core/types/margin.js';
import type { BookView, FillEvent, KeyValueStore, MarketView } from '../core/views.js';
import type { ExecutionEngine, ExecutionJournal } from '../execution/engine.js';
import type { Venue } from '../execution/venue.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { CheckOptions } from '../risk/types.js';
import type { AnyStrategyDefinition } from '../strategy/define.js';
import type { ParamValues, ParamSpecs } from '../strategy/params.js';
import type { PlotSink } from '../strategy/plots.js';

export interface StrategyInstance {
  /** Unique instance name (also the client-id prefix source). */
  name: string;
  definition: AnyStrategyDefinition;
  params: ParamValues<ParamSpecs>;
  markets: string[];
  resolutionSec: number;
  /** Other resolutions (seconds) it declared in the config (`candles:`): fed to its windows by the mode (stream, data). */
  candleSeconds?: readonly number[];
  /** `main` or a trading-credit sub-account. */
  account: string;
}

/** What the core needs from the risk module. */
export interface RiskPort {
  check(intent: Intent, options?: CheckOptions): Verdict & { reservationId?: string };
  /**
   * The margin open to preview on the venue (dry run) before the check, or undefined to check at
   * once: only a margin open whose strategy has a minimum call distance needs one.
   */
  marginPreviewRequest?(intent: Intent): MarginRequest | undefined;
  /** False when the mode's gate denies the intent anyway (a warm-up): its instant price is not asked for. */
  precheckWanted?(intent: Intent): boolean;
  /** Amount of an asset reserved by in-flight intents of the bot on an account. */
  reserved?(account: string, asset: string): Decimal;
  /** Release a reservation whose intent ended without an order (instant, margin, failures). */
  release?(reservationId: string): void;
}

interface JournalPort {
  recordDecision?(verdict: Verdict): void;
}

export interface TradingCoreDeps {
  clock: Clock;
  logger: Logger;
  instances: StrategyInstance[];
  engine: ExecutionEngine;
  portfolio: Portfolio;
  risk: RiskPort;
  venueFor(account: string): Venue;
  market(symbol: string): MarketView | undefined;
  /** A market's base and quote, as the kernel decided them (never split from the symbol). */
  instrument(symbol: string): Instrument | undefined;
  book(symbol: string): BookView | undefined;
  kv(strategy: string): KeyValueStore;
  /** Not passed by any mode today: the risk engine journals every verdict through its sink (src/risk/sinks.ts). */
  journal?: JournalPort;
  /** Where instant orders and their fills are journaled (spot orders are journaled by the engine). */
  executionJournal?: ExecutionJournal;
  /** Candles kept per market and resolution for `ctx.candles()`. */
  candleCapacity?: number;
  /** Every fill, after the portfolio booked it and before the strategy hears of it. */
  onFill?(fill: FillEvent): void;
  /** Where `ctx.plot` points go (a backtest's collector); none: checked and dropped. */
  plot?: PlotSink;
  /**
   * The strategy that owns a margin position (the kernel's owners). A strategy sees only its own
   * positions in `ctx.marginPositions()` and may close or top up only those. None: every position is
   * every strategy's (unit tests of one strategy).
   */
  ownerOf?(position: MarginPosition): string | undefined;
  /** An `exit` intent: start the exit of the strategy's brackets in the market (the kernel's bracket manager); what they will sell. */
  exitBrackets?(strategy: string, symbol: string): Decimal;
  /** The trading state's reason when halted (an exit is denied then), else undefined. */
  halted?(): string | undefined;
}
