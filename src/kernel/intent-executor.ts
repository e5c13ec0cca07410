/**
 * Carries out an intent the risk module passed: spot orders and cancels through the execution
 * engine, instant and margin intents straight on the venue (they complete in one call). Any
 * exchange refusal comes back to the strategy as a denial (`onDenied`) with rule `exchange` and the
 * exchange's reason, counted with the risk denials (status line, backtest tally, API): for a spot
 * order, after its order update with state `rejected`.
 */
import type { Clock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import type { Intent } from '../core/intents.js';
import type { Logger } from '../core/logger.js';
import type { InstantOrder } from '../core/types/order.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { ExecutionEngine, ExecutionJournal } from '../execution/engine.js';
import { receivedAsset, type Instrument } from '../core/instrument.js';
import type { Venue } from '../execution/venue.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { Denial, FillEvent } from '../core/views.js';

export interface IntentExecutorDeps {
  engine: ExecutionEngine;
  venueFor(account: string): Venue;
  portfolio: Portfolio;
  clock: Clock;
  logger: Logger;
  accountOf(strategy: string): string;
  deny(d: Denial): void;
  fill(f: FillEvent, account: string): void;
  release(reservationId: string): void;
  /** A market's base and quote (the kernel's instruments): an instant order's fee asset when the answer names none. */
  instrument(symbol: string): Instrument | undefined;
  /** Best price of a side of a market's book: the price of a margin close that gives none (core/intents.ts). */
  best?(symbol: string, side: 'bid' | 'ask'): Decimal | undefined;
  /** Journal of orders and fills (instant orders are journaled here; spot orders by the engine). */
  journal?: ExecutionJournal;
  /** The strategy that owns a margin position: a close or top-up by another strategy is denied (rule `ownership`). */
  ownerOf?(position: MarginPosition): string | undefined;
}

export class IntentExecutor {
  constructor(private readonly deps: IntentExecutorDeps) {}

  /**
   * Whether the strategy of a margin close or top-up owns its position; denied (rule `ownership`)
   * when another strategy, or nobody known, does: a strategy never touches positions it did not open.
   */
  private owns(intent: Intent & { positionId: number }): boolean {
    const ownerOf = this.deps.ownerOf;
    if (!ownerOf) return true;
    const pos = this.deps.portfolio.marginPositions().find((p) => p.id === intent.positionId);
    const owner = pos ? ownerOf(pos) : undefined;
    if (pos && owner === intent.strategy) return true;
    const whose = !pos ? 'not an open position of the account' : owner ? `a position of ${owner}` : 'a position no strategy of this bot opened';
    this.deps.deny({ intent, rule: 'ownership', reason: `margin position ${intent.positionId} is ${whose}, not of ${intent.strategy}` });
    return false;
  }

  async execute(intent: Intent, reservationId?: string): Promise<void> {
    const d = this.deps;
    const account = d.accountOf(intent.strategy);
    try {
      switch (intent.kind) {
        case 'order': {
          // A refusal (a final error at creation: balance, limits, validation) is a denial with rule
          // `exchange`, as for every other intent; the order's own update (state rejected) came first.
          const o = await d.engine.submitOrder(intent, { account, ...(reservationId ? { reservationId } : {}) });
          if (o.state === 'rejected') {
            const reason = o.reason ?? 'rejected by the exchange';
            d.logger.warn({ strategy: intent.strategy, intent: intent.kind, clientOrderId: o.clientOrderId, err: reason }, 'exchange refused the intent');
            d.deny({ intent, rule: 'exchange', reason });
          }
          return;
        }
        case 'cancel': {
          if (d.engine.ownerOf(intent.clientOrderId) !== intent.strategy) {
            d.deny({ intent, rule: 'ownership', reason: `order ${intent.clientOrderId} is not an order of ${intent.strategy}` });
            return;
          }
          // An order dropped from memory is final: nothing to cancel (cancel() reads only those it holds).
          await d.engine.cancel(intent.clientOrderId);
          return;
        }
        case 'cancelAll':
          await d.engine.cancelAll(intent.symbol, intent.strategy);
          return;
        case 'instant': {
          if (intent.size.kind !== 'base') throw new Error('instant order size must be resolved to a base quantity before execution');
          const instrument = d.instrument(intent.symbol);
          if (!instrument) throw new Error(`market ${intent.symbol} is not in the market catalog: its instant order's fills could not be booked`);
          // Created when sent: the journal stores it after the answer, and its fills come before that.
          const sent = d.clock.now();
          const order = await d.venueFor(account).instantOrder({ symbol: intent.symbol, side: intent.side, quantity: intent.size.quantity });
          const fills = instantFills(order, intent.strategy, d.clock.now(), receivedAsset(instrument, order.side), intent.tag);
          this.journalInstant(order, intent.strategy, account, fills, sent, intent.tag);
          for (const f of fills) d.fill(f, account);
          return;
        }
        case 'marginOpen': {
          if (!intent.openPrice) throw new Error('margin open price must be set before execution');
          await d.venueFor(account).openPosition({
            market: intent.market,
            side: intent.side,
            collateral: intent.collateral,
            riskCoef: intent.riskCoef,
            openPrice: intent.openPrice,
            ...(intent.stopLoss ? { stopLoss: intent.stopLoss } : {}),
            ...(intent.takeProfit ? { takeProfit: intent.takeProfit } : {}),
          });
          await this.syncMargin(account);
          return;
        }
        case 'marginAddCollateral':
          if (!this.owns(intent)) return;
          await d.venueFor(account).addCollateral(intent.positionId, intent.amount);
          await this.syncMargin(account);
          return;
        case 'marginBrackets':
          if (!this.owns(intent)) return;
          await d.venueFor(account).setBrackets(intent.positionId, {
            ...(intent.stopLoss ? { stopLoss: intent.stopLoss } : {}),
            ...(intent.takeProfit ? { takeProfit: intent.takeProfit } : {}),
          });
          await this.syncMargin(account);
          return;
        case 'marginClose': {
          // No price given (the kernel's risk port prices it at the market before the check, within the
          // slippage bound): without a book there, a long closes by selling (best bid), a short by
          // buying back (best ask).
          if (!this.owns(intent)) return;
          const pos = d.portfolio.marginPositions().find((p) => p.id === intent.positionId);
          const price = intent.price ?? (pos ? d.best?.(pos.market, pos.side === 'long' ? 'bid' : 'ask') : undefined);
          if (!price) throw new Error(`margin position ${intent.positionId}: no price to close at (position unknown or no book for its market)`);
          await d.venueFor(account).closePosition(intent.positionId, price);
          await this.syncMargin(account);
          return;
        }
      }
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      d.logger.warn({ strategy: intent.strategy, intent: intent.kind, err: reason }, 'exchange refused the intent');
      d.deny({ intent, rule: 'exchange', reason });
    } finally {
      if (reservationId && intent.kind !== 'order') d.release(reservationId);
    }
  }

  private journalInstant(o: InstantOrder, strategy: string, account: string, fills: FillEvent[], sent: number, tag?: string): void {
    const j = this.deps.journal;
    if (!j) return;
    let filled = new Decimal(0);
    let quote = new Decimal(0);
    let fee = new Decimal(0);
    for (const f of fills) {
      filled = filled.plus(f.quantity);
      quote = quote.plus(f.quantity.mul(f.price));
      fee = fee.plus(f.fee);
    }
    j.upsertOrder({
      clientOrderId: o.clientOrderId,
      strategy,
      account,
      symbol: o.symbol,
      side: o.side,
      type: 'OTC',
      price: o.executedPrice ?? o.price,
      quantity: o.origQty,
      filled,
      filledQuote: quote,
      fee,
      state: 'filled',
      // Dated when sent (a new row takes updatedAt as its created time): sent, filled and answered
      // in one call, and its fills are never dated before the order's row.
      createdAt: sent,
      updatedAt: sent,
      quietPolls: 0,
      ...(tag ? { tag } : {}),
    });
    let cum = new Decimal(0);
    for (const f of fills) {
      cum = cum.plus(f.quantity);
      j.recordFill(f, `${o.clientOrderId}:${cum.toFixed()}`);
    }
  }

  /**
   * The account's pending and open margin positions into the portfolio, as the bot loop syncs them
   * (runtime/bot-loop.ts): what `ctx.marginPositions()` lists is the same in every mode, and a closed
   * or liquidated position leaves it. (This read listed closed ones too: a backtest kept showing a
   * strategy its closed positions, paper and live only until the bot loop's next sync.)
   */
  async syncMargin(account: string): Promise<void> {
    const positions = await this.deps.venueFor(account).positions({ active: true });
    this.deps.portfolio.syncMargin(positions, account);
  }
}

/**
 * The fills of an instant order, or one synthesized from its executed totals when it lists none.
 * `received` (the order's received asset) is the fee asset of a fill whose answer names none.
 */
export function instantFills(o: InstantOrder, strategy: string, now: number, received: string, tag?: string): FillEvent[] {
  const base = { clientOrderId: o.clientOrderId, strategy, symbol: o.symbol, side: o.side, ...(tag ? { tag } : {}) };
  if (o.fills.length > 0) {
    return o.fills.map((f) => ({ ...base, price: f.price, quantity: f.quantity, fee: f.fee, feeAsset: f.feeAsset ?? received, timestamp: f.timestamp }));
  }
  if (o.executedQty.isZero()) return [];
  const price = o.executedPrice ?? o.price;
  return [{ ...base, price, quantity: o.executedQty, fee: o.fee ?? new Decimal(0), feeAsset: received, timestamp: now }];
}
