/**
 * The context a strategy instance gets (StrategyContext): its settings, clock and log, markets and
 * books, candle windows (through `candles`, which the trading core resolves), its balances net of
 * reservations, its positions and open orders, and its plots. Built once per instance.
 */
import { Decimal } from '../core/decimal.js';
import { toView } from '../execution/tracked-order.js';
import type { CandleWindow } from '../strategy/candle-window.js';
import type { StrategyContext } from '../strategy/define.js';
import { plotter } from '../strategy/plots.js';
import type { StrategyInstance, TradingCoreDeps } from './trading-core-ports.js';

export function strategyContext(
  inst: StrategyInstance,
  d: TradingCoreDeps,
  candles: (symbol: string, res: number | undefined) => CandleWindow,
): StrategyContext {
  return {
    name: inst.name,
    params: inst.params,
    markets: inst.markets,
    resolutionSec: inst.resolutionSec,
    clock: d.clock,
    log: d.logger.child({ strategy: inst.name }),
    state: d.kv(inst.name),
    now: () => d.clock.now(),
    market: (symbol) => {
      const m = d.market(symbol);
      if (!m) throw new Error(`unknown market ${symbol}`);
      return m;
    },
    book: (symbol) => d.book(symbol),
    candles,
    balance: (asset) => {
      const b = d.portfolio.balance(asset, inst.account);
      const reserved = d.risk.reserved?.(inst.account, asset) ?? new Decimal(0);
      return { asset, value: b.value, locked: b.locked, free: b.value.minus(b.locked).minus(reserved) };
    },
    position: (symbol) => d.portfolio.positions.view(inst.name, symbol),
    marginPositions: (market) => {
      const all = d.portfolio.marginPositions(market);
      const ownerOf = d.ownerOf;
      return ownerOf ? all.filter((p) => ownerOf(p) === inst.name) : all;
    },
    openOrders: (symbol) => d.engine.liveOrders({ strategy: inst.name, ...(symbol ? { symbol } : {}) }).map(toView),
    plot: plotter({ strategy: inst.name, plots: inst.definition.plots, markets: inst.markets, ...(d.plot ? { sink: d.plot } : {}) }),
  };
}

/**
 * ctx.candles() of a resolution nothing feeds: neither the strategy's own, nor a multiple of it, nor
 * declared. Refused (as freqtrade's informative timeframes must be declared) rather than an empty
 * window forever.
 */
export function undeclared(inst: StrategyInstance, symbol: string, seconds: number): Error {
  const own = inst.resolutionSec;
  return new Error(
    `strategy ${inst.name}: ctx.candles(${JSON.stringify(symbol)}, ${seconds}) reads ${seconds}s candles, which are neither its resolution (${own}s) nor a multiple of it, ` +
      `and the config does not declare them: add ${JSON.stringify(`${seconds}s`)} to this strategy's \`candles:\` list (strategies[].candles)` +
      (inst.markets.includes(symbol) ? '' : `; ${symbol} is not one of its markets (${inst.markets.join(', ')}), whose candles only are fed`),
  );
}
