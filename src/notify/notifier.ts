/**
 * Notifications of a running bot (`mizan run`, paper and live): the bot's own events, turned into
 * notices and queued to every target that wants them. The same event sources as the API
 * (src/server/bot-adapter.ts): fills read back from the journal, the risk engine's denials and
 * trading state, the execution engine's rejections, the public stream's connections, the strategies'
 * handler-error counts, and error lines of the logger's tap. Denials and errors are grouped (one
 * message per window); a stream connection is reported when it stays down `disconnectedAfterSec`; a
 * daily summary runs on node-cron like the strategies' schedules.
 *
 * Every listener here only builds a small object and hands it to the targets' queues (delivery.ts),
 * which send in the background: a slow or dead receiver never delays trading.
 */
import { randomUUID } from 'node:crypto';
import { nodeCron } from '../core/node-cron.js';
import type { Logger } from '../core/logger.js';
import type { NotificationsConfig, NotifyEvent } from '../config/schema-notify.js';
import { NOTIFY_EVENTS } from '../config/schema-notify.js';
import type { BotParts } from '../runtime/bot.js';
import { scrub } from '../runtime/logger.js';
import type { OrderView } from '../strategy/views.js';
import type { TradingStateRecord } from '../store/types.js';
import { Delivery, type DeliveryStats } from './delivery.js';
import { requestFor, type Notice, type NoticeLevel } from './format.js';

const DAY_MS = 86_400_000;
/** pino's JSON line of level error (50) or fatal (60): only those are parsed. */
const ERROR_LINE = /^\{"level":[56]0[,}]/;

export interface NotifierOptions {
  logger: Logger;
  /** Values never sent or logged (the exchange keys, the notification secrets). */
  secrets: readonly string[];
  now?: () => number;
  /** How often the strategies' handler-error counts are read (ms). */
  errorPollMs?: number;
  /** Tests: another fetch. */
  fetch?: typeof fetch;
}

export interface Notifier {
  /** A serialised log line of the bot (the logger's tap): error lines become `errors` notices. */
  onLogLine(line: string): void;
  stats(): Record<string, DeliveryStats>;
  /** Stop listening; give the queues up to `graceMs` to empty. */
  close(graceMs?: number): Promise<void>;
}

/** Counts by key within a window; flushed once, `windowMs` after the first. */
class Grouper {
  private counts = new Map<string, { n: number; example: string }>();
  private total = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly flush: (total: number, groups: [string, { n: number; example: string }][]) => void,
  ) {}

  add(key: string, example: string): void {
    const g = this.counts.get(key);
    if (g) g.n++;
    else this.counts.set(key, { n: 1, example });
    this.total++;
    if (!this.timer) {
      this.timer = setTimeout(() => this.fire(), this.windowMs);
      this.timer.unref();
    }
  }

  private fire(): void {
    this.timer = undefined;
    const groups = [...this.counts.entries()].sort((a, b) => b[1].n - a[1].n);
    const total = this.total;
    this.counts = new Map();
    this.total = 0;
    if (total > 0) this.flush(total, groups);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

const secs = (ms: number) => `${Math.round(ms / 1000)} s`;

export function startNotifier(bot: BotParts, cfg: NotificationsConfig, o: NotifierOptions): Notifier {
  const now = o.now ?? (() => Date.now());
  const log = o.logger.child({ component: 'notify' });
  const mode = bot.config.mode;
  const targets = cfg.targets.map((t, i) => {
    const name = t.name ?? `${t.format}#${i}`;
    const events = new Set<NotifyEvent>(t.events ?? NOTIFY_EVENTS);
    const delivery = new Delivery(name, (n) => requestFor(t, n, { mode }), cfg.delivery, log, o.secrets, o.fetch);
    return { name, events, delivery };
  });
  const wanted = (e: NotifyEvent) => targets.some((t) => t.events.has(e));
  // A secret (the exchange key, a notification token) never leaves in a notice, whatever a strategy put
  // in an error message or a denial reason.
  const clean = (t: string) => scrub(t, o.secrets);
  const send = (event: NotifyEvent, level: NoticeLevel, title: string, text: string, data: Record<string, unknown>) => {
    const json = JSON.stringify(data);
    const safe = clean(json);
    let d = data;
    if (safe !== json) {
      try {
        d = JSON.parse(safe) as Record<string, unknown>;
      } catch {
        d = { redacted: true };
      }
    }
    const n: Notice = { id: randomUUID(), event, level, time: now(), title: clean(title), text: clean(text), data: d };
    for (const t of targets) if (t.events.has(event)) t.delivery.enqueue(n);
  };
  const offs: (() => void)[] = [];
  const { journal, risk, engine, stream, core } = bot;

  // ------------------------------------------------------------------------------ fills
  if (wanted('fills')) {
    // Every fill the journal records (spot, instant, recovery), read back by id: as the API pushes them.
    // The notifier is attached before any strategy starts: every fill after the newest one now is new.
    let lastFillId = journal.fillsPage({ limit: 1 }).rows[0]?.id ?? 0;
    const tail = () => {
      try {
        for (;;) {
          const { rows } = journal.fillsPage({ afterId: lastFillId, limit: 500 });
          for (const f of rows) {
            lastFillId = f.id;
            const value = f.price.mul(f.quantity);
            send(
              'fills',
              'info',
              `Fill: ${f.strategy} ${f.side} ${f.quantity.toFixed()} ${f.symbol} @ ${f.price.toFixed()}`,
              `value ${value.toFixed()} · fee ${f.fee.toFixed()} ${f.feeAsset} · order ${f.clientId}${f.tag ? ` · tag ${f.tag}` : ''}`,
              {
                fillId: f.id,
                strategy: f.strategy,
                symbol: f.symbol,
                side: f.side,
                price: f.price.toFixed(),
                quantity: f.quantity.toFixed(),
                value: value.toFixed(),
                fee: f.fee.toFixed(),
                feeAsset: f.feeAsset,
                clientOrderId: f.clientId,
                tag: f.tag ?? null,
                ts: f.ts,
              },
            );
          }
          if (rows.length < 500) return;
        }
      } catch {
        // the journal is closing (the bot stops)
      }
    };
    let queued = false;
    const onFill = () => {
      if (queued) return;
      queued = true;
      setImmediate(() => {
        queued = false;
        tail();
      });
    };
    engine.on('fill', onFill);
    offs.push(() => engine.off('fill', onFill));
    const timer = setInterval(tail, 1_000);
    timer.unref();
    offs.push(() => clearInterval(timer));
  }

  // ------------------------------------------------------------------------------ denials
  if (wanted('denials')) {
    const windowMs = cfg.denialsEverySec * 1000;
    const denials = new Grouper(windowMs, (total, groups) => {
      const parts = groups.map(([rule, g]) => `${rule} ×${g.n}`);
      send(
        'denials',
        'warning',
        `${total} denial${total === 1 ? '' : 's'} in the last ${secs(windowMs)}: ${parts.join(', ')}`,
        groups.map(([rule, g]) => `${rule}: ${g.example}`).join('\n'),
        {
          total,
          windowSec: cfg.denialsEverySec,
          byRule: Object.fromEntries(groups.map(([rule, g]) => [rule, g.n])),
          examples: Object.fromEntries(groups.map(([rule, g]) => [rule, g.example])),
        },
      );
    });
    offs.push(() => denials.stop());
    const onDenied = (d: { intent: { strategy: string }; rule: string; reason: string }) => denials.add(d.rule, `${d.intent.strategy}: ${d.reason}`);
    risk.on('denied', onDenied);
    offs.push(() => risk.off('denied', onDenied));
    const onOrder = (u: { order: OrderView; reason?: string }) => {
      if (u.order.state === 'rejected') denials.add('exchange', `${u.order.strategy} ${u.order.symbol}: ${u.reason ?? 'rejected by the exchange'}`);
    };
    engine.on('order', onOrder);
    offs.push(() => engine.off('order', onOrder));
  }

  // ------------------------------------------------------------------------------ trading state
  if (wanted('tradingState')) {
    // Protection breaches (daily loss, drawdown, stop-loss guard) move the state: their reason says which.
    const onState = (rec: TradingStateRecord, prev: TradingStateRecord) => {
      const level: NoticeLevel = rec.state === 'halted' ? 'error' : rec.state === 'reducing' ? 'warning' : 'info';
      send('tradingState', level, `Trading state: ${rec.state} (was ${prev.state})`, rec.reason ?? '', {
        state: rec.state,
        previous: prev.state,
        reason: rec.reason ?? null,
        since: rec.since,
      });
    };
    risk.on('state', onState);
    offs.push(() => risk.off('state', onState));
  }

  // ------------------------------------------------------------------------------ errors
  let onErrorLine: (line: Record<string, unknown>) => void = () => undefined;
  if (wanted('errors')) {
    const windowMs = cfg.errorsEverySec * 1000;
    const errors = new Grouper(windowMs, (total, groups) => {
      send(
        'errors',
        'error',
        `${total} error${total === 1 ? '' : 's'} in the last ${secs(windowMs)}`,
        groups.map(([what, g]) => `${what} ×${g.n}`).join('\n'),
        { total, windowSec: cfg.errorsEverySec, errors: groups.map(([what, g]) => ({ what, count: g.n })) },
      );
    });
    offs.push(() => errors.stop());
    // Handler errors by kind from the runners' counts (their log lines are rate-limited, the counts are not).
    const seen = new Map<string, number>();
    const poll = () => {
      for (const [name, runner] of core.runners) {
        for (const k of runner.errorLog.list()) {
          const key = `${name}\u0000${k.handler}\u0000${k.error}`;
          const before = seen.get(key) ?? 0;
          for (let i = before; i < k.count; i++) errors.add(`strategy ${name}: ${k.handler} failed: ${k.error}`, '');
          seen.set(key, k.count);
        }
      }
    };
    poll();
    const timer = setInterval(poll, o.errorPollMs ?? 1_000);
    timer.unref();
    offs.push(() => clearInterval(timer));
    // Error lines of the bot (not the handler errors counted above, not this module's own).
    onErrorLine = (l) => {
      if (typeof l.level !== 'number' || l.level < 50) return;
      if (l.component === 'notify' || l.handler !== undefined) return;
      const msg = typeof l.msg === 'string' ? l.msg : 'error';
      errors.add(`${l.component ? `${String(l.component)}: ` : ''}${msg.slice(0, 300)}`, '');
    };
  }

  // ------------------------------------------------------------------------------ stream
  if (wanted('stream')) {
    const afterMs = cfg.disconnectedAfterSec * 1000;
    const down = new Map<number, { since: number; reason: string; timer: NodeJS.Timeout }>();
    let reportedAt: number | undefined;
    const onDown = (conn: number, reason: string) => {
      if (down.has(conn)) return;
      const since = now();
      const timer = setTimeout(() => {
        if (reportedAt !== undefined || !down.has(conn)) return;
        reportedAt = since;
        send(
          'stream',
          'error',
          `Stream disconnected for ${cfg.disconnectedAfterSec} s`,
          `connection ${conn} down since ${new Date(since).toISOString()}: ${reason}; market data is stale, the books are unhealthy`,
          { state: 'down', connection: conn, since, reason, downForSec: cfg.disconnectedAfterSec },
        );
      }, afterMs);
      timer.unref();
      down.set(conn, { since, reason, timer });
    };
    const onUp = (conn: number) => {
      const d = down.get(conn);
      if (!d) return;
      clearTimeout(d.timer);
      down.delete(conn);
      if (down.size === 0 && reportedAt !== undefined) {
        const ms = now() - reportedAt;
        reportedAt = undefined;
        send('stream', 'info', `Stream reconnected after ${secs(ms)}`, '', { state: 'up', connection: conn, downMs: ms });
      }
    };
    stream.on('connectionDown', onDown);
    stream.on('connectionUp', onUp);
    offs.push(() => {
      stream.off('connectionDown', onDown);
      stream.off('connectionUp', onUp);
      for (const d of down.values()) clearTimeout(d.timer);
    });
  }

  // ------------------------------------------------------------------------------ daily summary
  if (cfg.dailySummary && wanted('dailySummary')) {
    const [h, m, s = '0'] = cfg.dailySummary.at.split(':');
    const task = nodeCron().schedule(`${Number(s)} ${Number(m)} ${Number(h)} * * *`, () => summary(), {
      timezone: cfg.dailySummary.timezone,
      name: 'mizan-notify-summary',
    });
    offs.push(() => void task.stop());
    log.info({ at: cfg.dailySummary.at, timezone: cfg.dailySummary.timezone }, 'notify: daily summary scheduled');
  }
  function summary(): void {
    try {
      const t = now();
      const snap = bot.loop.snapshot();
      const since = t - DAY_MS;
      const first = journal.equity({ since }).find((r) => r.asset === snap.reference);
      const dayStart = first?.equity ?? snap.startEquity;
      const change = snap.equity.minus(dayStart);
      const trades = journal.fillsPage({ since, limit: 1 }).total;
      const ref = snap.reference;
      const lines = [
        `equity ${snap.equity.toFixed(2)} ${ref} (${change.gte(0) ? '+' : ''}${change.toFixed(2)} in 24 h)`,
        `pnl since start ${snap.equity.minus(snap.startEquity).toFixed(2)} ${ref} · realized ${snap.realized.toFixed(2)} · unrealized ${snap.unrealized.toFixed(2)}`,
        `trades in 24 h ${trades} · open orders ${snap.openOrders} · denials ${snap.denials} · errors ${snap.errors ?? 0} (since start)`,
        `trading state ${snap.tradingState}`,
      ];
      send('dailySummary', 'info', `Daily summary (${mode})`, lines.join('\n'), {
        reference: ref,
        equity: snap.equity.toFixed(),
        equity24hAgo: dayStart.toFixed(),
        change24h: change.toFixed(),
        pnlSinceStart: snap.equity.minus(snap.startEquity).toFixed(),
        realized: snap.realized.toFixed(),
        unrealized: snap.unrealized.toFixed(),
        trades24h: trades,
        openOrders: snap.openOrders,
        denials: snap.denials,
        errors: snap.errors ?? 0,
        tradingState: snap.tradingState,
      });
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'notify: daily summary not built');
    }
  }

  log.info({ targets: targets.map((t) => ({ name: t.name, events: [...t.events] })) }, `notify: ${targets.length} target(s)`);
  return {
    onLogLine(line) {
      if (!ERROR_LINE.test(line)) return;
      let l: Record<string, unknown>;
      try {
        l = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      onErrorLine(l);
    },
    stats: () => Object.fromEntries(targets.map((t) => [t.name, { ...t.delivery.stats }])),
    async close(graceMs = 3_000) {
      for (const off of offs.splice(0)) off();
      await Promise.all(targets.map((t) => t.delivery.close(graceMs)));
    },
  };
}
