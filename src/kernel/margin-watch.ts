/**
 * The margin monitor, live. On a price update of a market with open margin positions (`onPrice`,
 * fed from the market-data engine) and on a timer, it runs `MarginMonitor.evaluate` over the
 * portfolio's margin positions at the mark price, and turns its actions into intents of the
 * strategy that owns each position (PositionOwners):
 * - warn   -> `TradingCore.onMarginAlert(strategy, alert)` only;
 * - topUp  -> the alert, then a `marginAddCollateral` intent of that strategy;
 * - close  -> the alert, then a `marginClose` intent at the market (the best bid for a long, best
 *             ask for a short, moved by the strategy's slippage bound: kernel.ts; else the mark).
 * Intents go through `TradingCore.process`, so they pass risk (balance, trading state) like any
 * other; a top-up that did not raise the position's collateral (denied or refused) goes back to the
 * monitor's budget. Evaluations never overlap: a price update during one runs once more after it.
 */
import type { Decimal } from '../core/decimal.js';
import type { Intent } from '../core/intents.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { MarginAction, MarginMonitor } from '../risk/margin-monitor.js';
import type { PositionOwners } from '../risk/margin-owners.js';
import type { MarginAlert } from '../core/views.js';

/** The tag of the margin monitor's closes (their trades end `margin monitor`). */
export const MONITOR_CLOSE_TAG = 'margin-close';

export interface MarginWatchDeps {
  core: { process(intents: Intent[]): void | Promise<void>; onMarginAlert(strategy: string, alert: MarginAlert): void };
  monitor: MarginMonitor;
  owners: PositionOwners;
  /** Open margin positions as last synced from the venue (`portfolio.marginPositions()`). */
  positions(): readonly MarginPosition[];
  /** Whether `positions()` has been read from the venue at all (default: yes); owners are pruned only against a read list. */
  positionsRead?(): boolean;
  /** Mark price of a market (book mid, else last price). */
  mark(symbol: string): Decimal | undefined;
  /** Price that closes a position of `strategy` at the market (kernel.ts). Defaults to the mark. */
  closePrice?(position: MarginPosition, strategy: string): Decimal | undefined;
  /** Re-read the positions from the venue before a timed evaluation (e.g. `executor.syncMargin`). */
  refresh?(): Promise<void>;
  /** Forget the owners of positions no longer open (default true; a backtest keeps them for its result). */
  pruneOwners?: boolean;
  /** Timer period; 0 or absent: price updates only. */
  intervalMs?: number;
  logger?: Logger;
}

export interface MarginWatch {
  /** A price of `symbol` changed: evaluate when a margin position is open on it. */
  onPrice(symbol: string): void;
  /** Evaluate now (refreshing first when asked); resolves once the resulting intents were processed. */
  check(opts?: { refresh?: boolean }): Promise<MarginAction[]>;
  /** Resolves when no evaluation is running or queued. */
  idle(): Promise<void>;
  stop(): void;
}

export function startMarginWatch(deps: MarginWatchDeps): MarginWatch {
  const log = deps.logger ?? silentLogger;
  let running: Promise<MarginAction[]> | undefined;
  let again = false;
  let stopped = false;

  const act = async (a: MarginAction): Promise<void> => {
    const strategy = deps.owners.owner(a.position);
    if (!strategy) {
      log.error({ positionId: a.position.id, action: a.action }, `margin ${a.action} for position #${a.position.id} has no owning strategy: ${a.reason}`);
      if (a.action === 'topUp' && a.asset && a.amount) deps.monitor.refund(a.position.id, a.amount);
      return;
    }
    const alert: MarginAlert = {
      position: a.position,
      action: a.action,
      markPrice: a.markPrice,
      distanceToCallPct: a.distanceToCallPct,
      distanceToLiquidationPct: a.distanceToLiquidationPct,
    };
    deps.core.onMarginAlert(strategy, alert);
    if (a.action === 'topUp' && a.amount) {
      const before = a.position.collateral.value;
      await deps.core.process([{ kind: 'marginAddCollateral', strategy, positionId: a.position.id, amount: a.amount, tag: 'margin-topup' }]);
      const after = deps.positions().find((p) => p.id === a.position.id);
      if (a.asset && (!after || !after.collateral.value.gte(before.plus(a.amount)))) {
        deps.monitor.refund(a.position.id, a.amount);
        log.warn({ positionId: a.position.id, amount: a.amount.toFixed() }, 'margin top-up was not made: budget refunded');
      }
    } else if (a.action === 'close') {
      const price = deps.closePrice?.(a.position, strategy) ?? a.markPrice;
      await deps.core.process([{ kind: 'marginClose', strategy, positionId: a.position.id, price, tag: MONITOR_CLOSE_TAG }]);
    }
  };

  const evaluateOnce = async (refresh: boolean): Promise<MarginAction[]> => {
    if (refresh && deps.refresh) {
      try {
        await deps.refresh();
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'margin watch: refresh failed, using the last synced positions');
      }
    }
    // Only the positions this bot opened (on record): one opened by hand or by another bot is not the
    // monitor's to top up with this bot's budget or to close (the fallback owner names it for the journal only).
    const open = deps.positions().filter((p) => p.state === 'open' && deps.owners.opener(p.id) !== undefined);
    // Only against a list read from the venue: before the first read (a restart whose first refresh
    // failed) the empty list would end every owner the journal holds, and the budget they spent.
    if ((deps.pruneOwners ?? true) && (deps.positionsRead?.() ?? true)) {
      deps.owners.prune(deps.positions().filter((p) => p.state === 'open' || p.state === 'pending'));
      // A position the owners no longer hold has ended: its top-ups leave the budget's count.
      deps.monitor.release((id) => deps.owners.opener(id) !== undefined);
    }
    const actions = deps.monitor.evaluate(open, (s) => deps.mark(s));
    for (const a of actions) await act(a);
    return actions;
  };

  const run = (refresh: boolean): Promise<MarginAction[]> => {
    if (running) {
      again = true;
      return running;
    }
    const p = (async () => {
      const out: MarginAction[] = [];
      let first = true;
      do {
        again = false;
        out.push(...(await evaluateOnce(first && refresh)));
        first = false;
      } while (again && !stopped);
      return out;
    })();
    running = p.finally(() => {
      running = undefined;
    });
    return running;
  };

  const report = (p: Promise<unknown>) => void p.catch((err: unknown) => log.error({ err }, 'margin watch failed'));

  let timer: NodeJS.Timeout | undefined;
  if (deps.intervalMs && deps.intervalMs > 0) {
    timer = setInterval(() => report(run(true)), deps.intervalMs);
    timer.unref();
  }

  return {
    onPrice(symbol) {
      if (stopped) return;
      if (!deps.positions().some((p) => p.market === symbol && p.state === 'open')) return;
      report(run(false));
    },
    check: (opts = {}) => run(opts.refresh ?? false),
    async idle() {
      while (running) await running.catch(() => undefined);
    },
    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
    },
  };
}
