/**
 * External changes of the trading state (the kill switch). `mizan halt` / `mizan resume` write the
 * trading state into the journal; a running bot picks the change up here: every `intervalMs` (and
 * at once on `signal`, e.g. SIGUSR2) the journal's record is compared with the engine's, and a
 * difference is applied through the engine (`halt`, `reduce`, `resume`), so it is logged, emitted
 * (a halt cancels every open order when `cancelOpenOrdersOnHalt` is on) and saved back.
 *
 * The engine saves each of its own changes to the same journal synchronously, so the two agree
 * except after an external write; state and reason are compared (the engine stamps `since` anew).
 */
import type { Logger } from '../core/logger.js';
import { silentLogger } from '../core/logger.js';
import type { TradingStateRecord } from './ports.js';

export interface TradingStateSource {
  tradingState(): TradingStateRecord | undefined;
}

/** What the watcher drives (RiskEngine fits). */
export interface TradingStateTarget {
  readonly state: { readonly record: Readonly<TradingStateRecord> };
  halt(reason: string): void;
  reduce(reason: string): void;
  resume(reason?: string): void;
}

export interface TradingStateWatchOptions {
  intervalMs?: number;
  /** A process signal that triggers a check at once (e.g. 'SIGUSR2'). */
  signal?: NodeJS.Signals;
  logger?: Logger;
}

export interface TradingStateWatch {
  /** Compare once; returns the record applied, if any. */
  check(): TradingStateRecord | undefined;
  stop(): void;
}

export function watchTradingState(journal: TradingStateSource, risk: TradingStateTarget, opts: TradingStateWatchOptions = {}): TradingStateWatch {
  const log = opts.logger ?? silentLogger;
  const check = (): TradingStateRecord | undefined => {
    let ext: TradingStateRecord | undefined;
    try {
      ext = journal.tradingState();
    } catch (err) {
      log.warn({ err: err instanceof Error ? err.message : String(err) }, 'trading state: cannot read the journal');
      return undefined;
    }
    const cur = risk.state.record;
    if (!ext || (ext.state === cur.state && (ext.reason ?? '') === (cur.reason ?? ''))) return undefined;
    const reason = ext.reason ?? `set from outside at ${new Date(ext.since).toISOString()}`;
    log.warn({ state: ext.state, reason, previous: cur.state }, `trading state changed from outside: ${cur.state} -> ${ext.state}`);
    if (ext.state === 'halted') risk.halt(reason);
    else if (ext.state === 'reducing') risk.reduce(reason);
    else if (ext.state === 'active') risk.resume(reason);
    else {
      log.error({ state: ext.state }, `trading state: unknown state ${JSON.stringify(ext.state)} in the journal, ignored`);
      return undefined;
    }
    return ext;
  };
  const timer = opts.intervalMs && opts.intervalMs > 0 ? setInterval(check, opts.intervalMs) : undefined;
  timer?.unref();
  const onSignal = () => void check();
  if (opts.signal) process.on(opts.signal, onSignal);
  return {
    check,
    stop() {
      if (timer) clearInterval(timer);
      if (opts.signal) process.off(opts.signal, onSignal);
    },
  };
}
