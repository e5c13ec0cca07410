/**
 * Each fill of a running bot as a log line, spot and instant alike, once the portfolio booked it:
 * strategy, market, side, quantity, price, fee; a partial fill says how much of the order is filled
 * so far. The message names the order type (`market order filled`, `limit order partly filled`,
 * `instant order filled`).
 */
import type { FillEvent } from '../core/views.js';
import type { Logger } from '../core/logger.js';
import type { ExecutionEngine } from '../execution/engine.js';

export function logFills(fills: { onFill(listener: (f: FillEvent) => void): void }, engine: ExecutionEngine, logger: Logger): void {
  fills.onFill((f) => {
    // Spot orders are the engine's; an instant (OTC) order completes in one call and never is.
    const o = engine.orders.get(f.clientOrderId);
    const type = o ? o.type.toLowerCase().replace('_', ' ') : 'instant';
    const partial = o !== undefined && o.filled.lt(o.quantity);
    logger.info(
      {
        strategy: f.strategy,
        symbol: f.symbol,
        side: f.side,
        quantity: f.quantity.toFixed(),
        price: f.price.toFixed(),
        fee: `${f.fee.toFixed()} ${f.feeAsset}`,
        clientOrderId: f.clientOrderId,
        ...(partial ? { filledSoFar: `${o.filled.toFixed()}/${o.quantity.toFixed()}` } : {}),
      },
      `${type} order ${partial ? 'partly filled' : 'filled'}`,
    );
  });
}
