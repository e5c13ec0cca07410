/**
 * Each spot fill of a running bot as a log line, as the paper exchange's instant desk logs an instant
 * fill: strategy, market, side, quantity, price, fee; a partial fill says how much of the order is
 * filled so far.
 */
import type { Logger } from '../core/logger.js';
import type { ExecutionEngine } from '../execution/engine.js';

export function logFills(engine: ExecutionEngine, logger: Logger): void {
  engine.on('fill', (f) => {
    const o = engine.orders.get(f.clientOrderId);
    const type = (o?.type ?? 'spot').toLowerCase().replace('_', ' ');
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
