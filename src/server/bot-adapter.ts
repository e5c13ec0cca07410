/**
 * The bot control port (port.ts) over what `startBot` returns. Reads come from the live objects
 * (status, strategies, balances, open orders) and from the journal (orders, fills, equity history);
 * controls go through the same paths as the command line: halt and resume through the risk engine's
 * trading state (what `mizan halt` and SIGUSR2 reach; a halt cancels every open order), cancels
 * through the execution engine.
 *
 * Fills are pushed from the journal: every fill the journal records (spot orders, instant orders,
 * recovery) is read back by id, at once after the engine announces one and at the latest every 250 ms,
 * so the stream's fill is the same row GET /fills returns.
 */
import type { Decimal } from '../core/decimal.js';
import type { Bot } from '../runtime/bot.js';
import type { TrackedOrder } from '../execution/tracked-order.js';
import type { FillRow, OrderRow, TradingStateRecord } from '../store/types.js';
import type { OrderView } from '../strategy/views.js';
import type { LiveCandle } from '../market/candle-aggregator.js';
import type { LogRing } from './log-ring.js';
import { NotFoundError, type BotControl, type BotEvent, type CandleDto, type FillDto, type OrderDto, type StrategyDto, type TradingStateDto } from './port.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { DenialLog } from './denial-log.js';
import { booksView, plotsView, Precisions } from './bot-views.js';

export { DenialLog };

const str = (d: Decimal | undefined): string | null => (d === undefined ? null : d.toFixed());

function stateDto(r: Readonly<TradingStateRecord>): TradingStateDto {
  return { state: r.state, reason: r.reason ?? null, since: r.since };
}

function liveOrderDto(o: TrackedOrder | OrderView, reason?: string): OrderDto {
  const updatedAt = 'updatedAt' in o ? o.updatedAt : o.createdAt;
  const r = reason ?? ('reason' in o ? o.reason : undefined);
  return {
    clientOrderId: o.clientOrderId,
    strategy: o.strategy,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    price: str(o.price),
    quantity: o.quantity.toFixed(),
    filled: o.filled.toFixed(),
    status: o.state,
    final: ['filled', 'cancelled', 'rejected', 'expired'].includes(o.state),
    reason: r ?? null,
    tag: o.tag ?? null,
    createdAt: o.createdAt,
    updatedAt,
  };
}

function journalOrderDto(o: OrderRow): OrderDto {
  return {
    clientOrderId: o.clientId,
    strategy: o.strategy,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    price: str(o.price),
    quantity: o.quantity.toFixed(),
    filled: o.executedQty.toFixed(),
    status: o.status,
    final: o.final,
    reason: null,
    tag: o.tag ?? null,
    createdAt: o.createdTs,
    updatedAt: o.updatedTs,
  };
}

function fillDto(f: FillRow): FillDto {
  return {
    id: f.id,
    clientOrderId: f.clientId,
    strategy: f.strategy,
    symbol: f.symbol,
    side: f.side,
    price: f.price.toFixed(),
    quantity: f.quantity.toFixed(),
    fee: f.fee.toFixed(),
    feeAsset: f.feeAsset,
    ts: f.ts,
    tag: f.tag ?? null,
  };
}

function candleDto(c: LiveCandle): CandleDto {
  return {
    time: c.time,
    open: c.open.toFixed(),
    high: c.high.toFixed(),
    low: c.low.toFixed(),
    close: c.close.toFixed(),
    volume: c.volume.toFixed(),
    empty: c.empty,
  };
}

/** JSON-safe copy (Decimals become their strings). */
const plain = (v: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(v)) as Record<string, unknown>;

export interface BotControlAdapter extends BotControl {
  /** Stop listening to the bot (before the bot stops). */
  close(): void;
}

export function botControl(bot: Bot, logs: LogRing, now: () => number = () => Date.now(), early?: DenialLog): BotControlAdapter {
  const { config, core, engine, risk, portfolio, market, journal, loop } = bot;
  const symbols = [...new Set(config.strategies.flatMap((s) => s.markets))];
  const accounts = [...new Set([MAIN_ACCOUNT, ...config.strategies.map((s) => s.account ?? MAIN_ACCOUNT)])];
  const startedAt = now() - loop.snapshot().elapsedMs;
  const listeners = new Set<(e: BotEvent) => void>();
  // Called from the bot's own events (the engine's, the risk engine's, the logger's): a listener that
  // throws must never reach them, so a failure is dropped here.
  const emit = (e: BotEvent) => {
    for (const l of listeners) {
      try {
        l(e);
      } catch {
        // the server's listener failed on one client; trading goes on
      }
    }
  };
  const denials = early ?? new DenialLog(bot, now);
  denials.onDenial((d) => emit({ type: 'denial', denial: d }));
  // Every amount is rounded as the exchange writes it: a market's prices and quantities to its
  // precision, money in the reference asset to that asset's (not the 40 digits of the arithmetic).
  const prec = new Precisions(bot.catalog, symbols);

  // ------------------------------------------------------------------------------ events
  const offs: (() => void)[] = [];
  offs.push(() => denials.close());
  const onState = (rec: TradingStateRecord, prev: TradingStateRecord) => emit({ type: 'tradingState', state: stateDto(rec), previous: prev.state });
  risk.on('state', onState);
  offs.push(() => risk.off('state', onState));
  let lastFillId = journal.fillsPage({ limit: 1 }).rows[0]?.id ?? 0;
  const tailFills = () => {
    for (;;) {
      const { rows } = journal.fillsPage({ afterId: lastFillId, limit: 500 });
      for (const r of rows) {
        lastFillId = r.id;
        emit({ type: 'fill', fill: fillDto(r) });
      }
      if (rows.length < 500) return;
    }
  };
  let tailQueued = false;
  const onFill = () => {
    if (tailQueued) return;
    tailQueued = true;
    setImmediate(() => {
      tailQueued = false;
      tailFills();
    });
  };
  engine.on('fill', onFill);
  offs.push(() => engine.off('fill', onFill));
  const tailTimer = setInterval(() => {
    try {
      tailFills();
    } catch {
      // the journal is closing (the bot stops): nothing more to push
    }
  }, 250);
  tailTimer.unref();
  offs.push(() => clearInterval(tailTimer));
  const onOrder = (u: { order: OrderView; previous: string; reason?: string }) => {
    emit({ type: 'order', order: liveOrderDto(u.order, u.reason), previous: u.previous });
  };
  engine.on('order', onOrder);
  offs.push(() => engine.off('order', onOrder));
  offs.push(logs.on((log) => emit({ type: 'log', log })));
  const onCandle = (symbol: string, resolution: number, c: LiveCandle) => emit({ type: 'candle', symbol, resolution, candle: candleDto(c) });
  market.on('candleClosed', onCandle);
  offs.push(() => market.off('candleClosed', onCandle));

  // ------------------------------------------------------------------------------ reads
  const runnerOf = (name: string) => {
    const r = core.runners.get(name);
    if (!r) throw new NotFoundError(`strategy ${JSON.stringify(name)} is not a strategy of this bot (strategies: ${[...core.runners.keys()].join(', ')})`);
    return r;
  };
  const strategy = (name: string): StrategyDto => {
    const runner = runnerOf(name);
    const s = config.strategies.find((x) => x.name === name)!;
    // The rows the stop summary shows (spot and margin), at the kernel's marks.
    const pnl = loop
      .pnlRows()
      .filter((r) => r.strategy === name)
      .map((r) => {
        const price = loop.mark(r.symbol);
        return {
          symbol: r.symbol,
          position: prec.base(r.symbol, r.quantity),
          avgPrice: prec.price(r.symbol, r.avgPrice),
          realized: prec.quote(r.symbol, r.realized),
          unrealized: prec.quote(r.symbol, r.unrealized),
          fees: prec.quote(r.symbol, r.fees),
          trades: r.trades,
          price: price ? prec.price(r.symbol, price) : null,
          value: price ? prec.quote(r.symbol, r.quantity.mul(price)) : null,
        };
      });
    return {
      name,
      strategy: s.strategy,
      state: runner.isStopped ? 'stopped' : 'running',
      markets: s.markets,
      resolution: s.resolutionSeconds,
      account: s.account ?? MAIN_ACCOUNT,
      params: plain(s.params ?? {}),
      handlerErrors: runner.errors,
      pnl,
      openOrders: engine.liveOrders({ strategy: name }).map((o) => liveOrderDto(o)),
      recentDenials: denials.recent(name),
    };
  };
  const liveOrder = (id: string): TrackedOrder => {
    const o = engine.liveOrders().find((x) => x.clientOrderId === id);
    if (!o) throw new NotFoundError(`order ${JSON.stringify(id)} is not a live order of this bot`);
    return o;
  };

  return {
    status() {
      const s = loop.snapshot();
      const money = (d: Decimal) => prec.amount(s.reference, d);
      return {
        mode: s.mode,
        startedAt,
        uptimeMs: now() - startedAt,
        tradingState: stateDto(risk.state.record),
        reference: s.reference,
        equity: money(s.equity),
        startEquity: money(s.startEquity),
        pnl: money(s.equity.minus(s.startEquity)),
        realized: money(s.realized),
        unrealized: money(s.unrealized),
        openOrders: s.openOrders,
        fills: s.fills,
        denials: s.denials,
        errors: s.errors ?? 0,
        books: symbols.map((sym) => {
          const h = market.health(sym);
          return { symbol: sym, healthy: h.healthy, reasons: [...h.reasons], lastUpdateAt: h.lastUpdateAt ?? null };
        }),
        lastDenial: core.lastDenial ? { strategy: core.lastDenial.intent.strategy, rule: core.lastDenial.rule, reason: core.lastDenial.reason } : null,
        denied: core.denialTally.breakdown(),
        referencePrecision: prec.asset(s.reference),
        markets: prec.list(),
      };
    },
    strategies: () => config.strategies.map((s) => strategy(s.name)),
    strategy,
    balances() {
      const out: Record<string, { asset: string; value: string; locked: string }[]> = {};
      for (const a of accounts) {
        const b = portfolio.equity(now(), a).balances;
        out[a] = Object.entries(b).map(([asset, x]) => ({ asset, value: x.value, locked: x.locked }));
      }
      return out;
    },
    orders(q) {
      const p = journal.ordersPage({
        ...(q.strategy !== undefined ? { strategy: q.strategy } : {}),
        ...(q.symbol !== undefined ? { symbol: q.symbol } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.since !== undefined ? { since: q.since } : {}),
        limit: q.limit,
        offset: q.offset,
      });
      // The live state is newer than the journal's row for an order still tracked.
      const items = p.rows.map((r) => {
        const live = engine.orders.get(r.clientId);
        return live ? { ...journalOrderDto(r), ...liveOrderDto(live) } : journalOrderDto(r);
      });
      return { items, total: p.total, limit: q.limit, offset: q.offset };
    },
    fills(q) {
      const p = journal.fillsPage({
        ...(q.strategy !== undefined ? { strategy: q.strategy } : {}),
        ...(q.symbol !== undefined ? { symbol: q.symbol } : {}),
        ...(q.since !== undefined ? { since: q.since } : {}),
        limit: q.limit,
        offset: q.offset,
      });
      return { items: p.rows.map(fillDto), total: p.total, limit: q.limit, offset: q.offset };
    },
    marginPositions() {
      // The kernel's one record of which strategy opened which position (its margin rules, the
      // backtest's trades and the strategies' views use it too).
      return portfolio
        .marginPositions()
        .map((p) => ({ id: String(p.id), market: p.market, side: p.side, state: p.state, strategy: bot.kernel.owners.owner(p) ?? null, detail: plain(p) }));
    },
    equity(q) {
      const rows = journal.equity(q.since !== undefined ? { since: q.since } : {});
      return rows.slice(-q.limit).map((r) => ({ ts: r.ts, asset: r.asset, equity: prec.amount(r.asset, r.equity) }));
    },
    logs: (q) => logs.tail(q.limit, q.minLevel),
    candles(q) {
      if (!symbols.includes(q.symbol))
        throw new NotFoundError(`market ${JSON.stringify(q.symbol)} is not a market of this bot (markets: ${symbols.join(', ')})`);
      // Each market's candles are built at the resolutions of the strategies trading it.
      const resolutions = market.candleResolutions(q.symbol);
      if (!resolutions.includes(q.resolution))
        throw new NotFoundError(`the bot builds no candles of ${q.symbol} at resolution ${q.resolution}s (resolutions: ${resolutions.join(', ')})`);
      const current = market.currentCandle(q.symbol, q.resolution);
      return {
        symbol: q.symbol,
        resolution: q.resolution,
        candles: market.candles(q.symbol, q.resolution).slice(-q.limit).map(candleDto),
        current: current ? candleDto(current) : null,
      };
    },
    books: () => booksView(market, symbols, prec),
    plots(name) {
      runnerOf(name);
      return plotsView(name, bot.plots);
    },

    halt(reason) {
      risk.halt(reason);
      return stateDto(risk.state.record);
    },
    resume(reason) {
      risk.resume(reason);
      return stateDto(risk.state.record);
    },
    async stopStrategy(name, opts) {
      const runner = runnerOf(name);
      if (!runner.isStopped) {
        await runner.dispatch({ type: 'stop', keepOrders: opts.keepOrders });
        emit({ type: 'strategy', name, state: 'stopped' });
      }
      if (!opts.keepOrders) {
        const s = config.strategies.find((x) => x.name === name)!;
        for (const m of s.markets) await engine.cancelAll(m, name);
      }
      return strategy(name);
    },
    async startStrategy(name) {
      const runner = runnerOf(name);
      if (runner.isStopped) {
        await runner.dispatch({ type: 'start' });
        emit({ type: 'strategy', name, state: 'running' });
      }
      return strategy(name);
    },
    async cancelOrder(id) {
      const o = liveOrder(id);
      const after = await engine.cancel(o.clientOrderId);
      return liveOrderDto(after ?? o);
    },
    async cancelStrategyOrders(name) {
      runnerOf(name);
      const live = engine.liveOrders({ strategy: name });
      const bySymbol = [...new Set(live.map((o) => o.symbol))];
      for (const s of bySymbol) await engine.cancelAll(s, name);
      return { cancelled: live.length };
    },
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    close() {
      for (const off of offs.splice(0)) off();
      listeners.clear();
    },
  };
}
