/**
 * The bot's heartbeat: order polling (adaptive intervals live in the execution engine), balance and
 * margin sync from the venue, equity snapshots into the journal and the risk protections, and the
 * status line a person watches.
 *
 * An order that ends (cancelled, filled) after a balance read saw it resting still counts in that
 * read's `locked`: its funds would show as held until the next periodic sync (up to `syncMs`), and a
 * strategy that cancels and places again (a grid restarted, a quote replaced) would be denied for
 * money it has. So the account is read again `refreshMs` after such an order ends, one read for
 * every order that ended meanwhile.
 */
import type { Clock } from '../core/clock.js';
import { realTimers, type Timers } from '../core/timers.js';
import { Decimal } from '../core/decimal.js';
import type { MarginBook } from '../kernel/margin-book.js';
import type { Logger } from '../core/logger.js';
import type { MizanConfig } from '../config/schema.js';
import type { ExecutionEngine } from '../execution/engine.js';
import type { Venue } from '../execution/venue.js';
import type { MarketDataEngine } from '../market/engine.js';
import type { EquitySnapshot, PnlRow, Portfolio } from '../portfolio/portfolio.js';
import type { RiskEngine } from '../risk/engine.js';
import type { Journal } from '../store/journal.js';
import { statusLine, summary, type StatusSnapshot } from './status.js';
import type { BracketManager } from '../execution/brackets.js';
import { strategyProgress } from './progress.js';
import type { TradingCore } from '../kernel/trading-core.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import type { TrackedOrder } from '../execution/tracked-order.js';

const ZERO = new Decimal(0);

export interface BotLoopDeps {
  config: MizanConfig;
  clock: Clock;
  logger: Logger;
  core: TradingCore;
  engine: ExecutionEngine;
  risk: RiskEngine;
  portfolio: Portfolio;
  market: MarketDataEngine;
  journal: Journal;
  venueFor(account: string): Venue;
  symbols: string[];
  reference: string;
  /** The kernel's mark price of a market (book mid, else the last price): what the status line values positions at. */
  mark(symbol: string): Decimal | undefined;
  /** A market's base and quote asset (the kernel's instruments). */
  split(symbol: string): { base: string; quote: string };
  /** The kernel's equity sample (kernel.equity.sample: into the protections when every asset is priced). */
  equity(): EquitySnapshot;
  /** The kernel's equity now, not fed anywhere (kernel.equity.value). */
  value(): EquitySnapshot;
  /** The accounts the bot trades (kernel.accounts). */
  accounts: readonly string[];
  /** Price of one unit of an asset in another (for valuing PnL in the reference asset). */
  priceOf(asset: string, reference: string): Decimal | undefined;
  /** Where the status line goes (default stdout); none when `statusEveryMs` is 0. */
  out?: NodeJS.WritableStream;
  /** refreshMs: the wait between an order's end and the balance read it calls for (0: none). */
  intervals?: Partial<{ pollMs: number; syncMs: number; equityMs: number; statusEveryMs: number; refreshMs: number }>;
  /** The timers its periodic tasks run on (default: Node's, unref'd). */
  timers?: Timers;
  /** The kernel's brackets: those the stop suspended are named in the summary. */
  brackets?: Pick<BracketManager, 'suspended'>;
  /** The kernel's margin book: the margin trades of this run (realised, in the summary). */
  margin?: Pick<MarginBook, 'totals' | 'trades' | 'unrealized' | 'stillOpen'>;
}

export class BotLoop {
  private readonly handles: unknown[] = [];
  private readonly timers: Timers;
  private readonly startedAt: number;
  private startEquity: Decimal | undefined;
  private polling = false;
  /** When the last balance read of each account began: orders created before it may be in its `locked`. */
  private readonly readStarted = new Map<string, number>();
  /** Accounts whose `locked` holds an order that has ended since. */
  private readonly stale = new Set<string>();
  private refreshTimer: unknown;
  private refreshMs = 0;
  private readonly onFinal = (o: TrackedOrder) => {
    const read = this.readStarted.get(o.account);
    if (this.refreshMs <= 0 || read === undefined || o.createdAt > read) return;
    this.stale.add(o.account);
    this.refreshTimer ??= this.timers.setTimeout(() => void this.refresh(), this.refreshMs);
  };

  constructor(private readonly d: BotLoopDeps) {
    this.startedAt = d.clock.now();
    this.timers = d.timers ?? realTimers;
  }

  /** Read balances and margin positions of every account from the venue. */
  async syncAccount(): Promise<void> {
    for (const account of this.d.accounts) {
      const venue = this.d.venueFor(account);
      await this.readBalances(account);
      if (account === MAIN_ACCOUNT) {
        try {
          this.d.portfolio.syncMargin(await venue.positions({ active: true }), account);
        } catch (err) {
          this.d.logger.debug({ err: (err as Error).message }, 'margin positions not available');
        }
      }
    }
  }

  private async readBalances(account: string): Promise<void> {
    try {
      const started = this.d.clock.now();
      this.readStarted.set(account, started);
      this.stale.delete(account);
      this.d.portfolio.syncBalances(account, await this.d.venueFor(account).balances(), this.d.clock.now());
      // Reservations of orders accepted before this sync are now inside the exchange's `locked`.
      this.d.risk.reservations.balancesSynced(account, started);
    } catch (err) {
      this.d.logger.warn({ account, err: (err as Error).message }, 'balance sync failed');
    }
  }

  /** Read the accounts whose `locked` holds orders that have ended (one read each, however many ended). */
  private async refresh(): Promise<void> {
    this.refreshTimer = undefined;
    for (const account of [...this.stale]) await this.readBalances(account);
  }

  start(): void {
    const iv = { pollMs: 1_000, syncMs: 10_000, equityMs: 60_000, statusEveryMs: 5_000, refreshMs: 250, ...this.d.intervals };
    this.refreshMs = iv.refreshMs;
    this.d.engine.on('final', this.onFinal);
    const every = (ms: number, fn: () => unknown) => {
      if (ms <= 0) return;
      this.handles.push(
        this.timers.setInterval(() => void Promise.resolve(fn()).catch((err: unknown) => this.d.logger.error({ err }, 'periodic task failed')), ms),
      );
    };
    every(iv.pollMs, async () => {
      if (this.polling) return;
      this.polling = true;
      try {
        await this.d.engine.pollOnce();
      } finally {
        this.polling = false;
      }
    });
    every(iv.syncMs, () => this.syncAccount());
    every(iv.equityMs, () => this.recordEquity());
    const out = this.d.out ?? process.stdout;
    const color = Boolean((out as NodeJS.WriteStream).isTTY);
    every(iv.statusEveryMs, () => out.write(statusLine(this.snapshot(), color) + '\n'));
    this.recordEquity();
  }

  stop(): void {
    this.d.engine.off('final', this.onFinal);
    if (this.refreshTimer !== undefined) this.timers.clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    for (const t of this.handles.splice(0)) this.timers.clearInterval(t);
    this.recordEquity();
  }

  recordEquity(): void {
    // The kernel's equity feed: it values the account and feeds the protections, skipping (and
    // counting) a sample with an unpriced asset; only priced samples are journaled.
    const e = this.d.equity();
    if (e.unpriced.length > 0) return;
    // The start is the first equity with every asset priced (a book not read yet would leave one out).
    this.startEquity ??= e.equity;
    const balances: Record<string, Decimal> = {};
    for (const [a, b] of Object.entries(e.balances)) balances[a] = new Decimal(b.value);
    this.d.journal.recordEquity(this.d.reference, e.equity, balances, e.time);
  }

  snapshot(): StatusSnapshot {
    const now = this.d.clock.now();
    const eq = this.d.value().equity;
    const rows = this.d.portfolio.pnl((s) => this.d.mark(s));
    let realized = new Decimal(0);
    let unrealized = new Decimal(0);
    // The closed margin positions' trades are realised too, the open ones unrealised (as the summary's rows).
    for (const m of this.d.margin?.totals() ?? []) rows.push({ ...m, quantity: ZERO, avgPrice: ZERO, realized: m.pnl, unrealized: ZERO });
    for (const m of this.d.margin?.unrealized(this.d.portfolio.marginPositions()) ?? [])
      rows.push({ ...m, quantity: ZERO, avgPrice: ZERO, realized: ZERO, unrealized: m.pnl });
    for (const r of rows) {
      // Each row is in its market's quote asset: value it in the reference asset.
      const q = this.d.split(r.symbol).quote;
      const px = q === this.d.reference ? new Decimal(1) : this.d.priceOf(q, this.d.reference);
      if (!px) continue;
      realized = realized.plus(r.realized.mul(px));
      unrealized = unrealized.plus(r.unrealized.mul(px));
    }
    const unhealthy = this.d.symbols.filter((s) => !this.d.market.health(s).healthy);
    return {
      elapsedMs: now - this.startedAt,
      mode: this.d.config.mode,
      reference: this.d.reference,
      equity: eq,
      startEquity: this.startEquity ?? eq,
      realized,
      unrealized,
      openOrders: this.d.engine.liveOrders().length,
      fills: this.d.core.fills,
      denials: this.d.core.denials,
      ...(this.d.core.lastDenial
        ? { lastDenial: `${this.d.core.lastDenial.intent.strategy} ${this.d.core.lastDenial.rule}: ${this.d.core.lastDenial.reason}` }
        : {}),
      denied: this.d.core.denialTally.breakdown(),
      errors: [...this.d.core.runners.values()].reduce((n, r) => n + r.errors, 0),
      books: { healthy: this.d.symbols.length - unhealthy.length, total: this.d.symbols.length, unhealthy },
      tradingState: this.d.risk.state.state,
      lateTrades: this.d.market.lateTradeCount(),
      strategies: strategyProgress(this.d.core),
    };
  }

  /**
   * Each strategy's rows per market: its spot position (the portfolio, at the kernel's marks) with its
   * margin trading merged in. The stop summary and the API's strategies show these.
   */
  pnlRows(): PnlRow[] {
    const rows = this.d.portfolio.pnl((s) => this.d.mark(s));
    // A strategy's margin trades on a market count in its row (realised, fees, trades), its open
    // positions unrealised (their profit less the opening fee, which is in the fees).
    const merge = (m: { strategy: string; symbol: string; pnl: Decimal; fees: Decimal; trades: number }, open: boolean) => {
      const i = rows.findIndex((r) => r.strategy === m.strategy && r.symbol === m.symbol);
      const r = rows[i] ?? { strategy: m.strategy, symbol: m.symbol, quantity: ZERO, avgPrice: ZERO, realized: ZERO, unrealized: ZERO, fees: ZERO, trades: 0 };
      const merged = {
        ...r,
        ...(open ? { unrealized: r.unrealized.plus(m.pnl) } : { realized: r.realized.plus(m.pnl), trades: r.trades + m.trades }),
        fees: r.fees.plus(m.fees),
      };
      if (i >= 0) rows[i] = merged;
      else rows.push(merged);
    };
    for (const m of this.d.margin?.totals() ?? []) merge(m, false);
    for (const m of this.d.margin?.unrealized(this.d.portfolio.marginPositions()) ?? []) merge(m, true);
    return rows;
  }

  /** The market price the bot values a market at (the kernel's mark). */
  mark(symbol: string): Decimal | undefined {
    return this.d.mark(symbol);
  }

  summary(): string {
    const rows = this.pnlRows();
    // Every strategy and market of the config, also those that never traded.
    const zero = ZERO;
    for (const s of this.d.config.strategies) {
      for (const m of s.markets) {
        if (!rows.some((r) => r.strategy === s.name && r.symbol === m))
          rows.push({ strategy: s.name, symbol: m, quantity: zero, avgPrice: zero, realized: zero, unrealized: zero, fees: zero, trades: 0 });
      }
    }
    const order = (name: string) => this.d.config.strategies.findIndex((s) => s.name === name);
    rows.sort((a, b) => order(a.strategy) - order(b.strategy) || a.symbol.localeCompare(b.symbol));
    const open = this.d.margin?.stillOpen(this.d.portfolio.marginPositions()) ?? [];
    return summary(this.snapshot(), rows, this.d.split, this.d.margin?.trades ?? [], open, this.d.brackets?.suspended() ?? []);
  }
}
