/**
 * The bot's trading state (nautilus' RiskEngine states):
 * - `active`: every rule applies as usual;
 * - `reducing`: only intents that reduce exposure pass (cancels, sells of a held base asset up to
 *   the free amount, margin close, margin collateral top-up);
 * - `halted`: nothing passes except cancels (a cancel only ever lowers risk).
 * The state is saved through the sink on every change and read back at start, so a restart keeps
 * it. Protections can only move it up (active → reducing → halted); only an explicit `resume()` (CLI,
 * signal, API) brings it back to active.
 */
import { EventEmitter } from 'eventemitter3';
import type { Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { RiskSink, TradingStateName, TradingStateRecord } from './ports.js';

const SEVERITY: Record<TradingStateName, number> = { active: 0, reducing: 1, halted: 2 };

export interface TradingStateEvents {
  /** (new record, previous record) */
  change: [TradingStateRecord, TradingStateRecord];
}

export interface TradingStateDeps {
  clock: Clock;
  sink?: Pick<RiskSink, 'saveTradingState' | 'loadTradingState'>;
  logger?: Logger;
}

export class TradingState extends EventEmitter<TradingStateEvents> {
  private rec: TradingStateRecord;
  private readonly logger: Logger;

  constructor(private readonly deps: TradingStateDeps) {
    super();
    this.logger = deps.logger ?? silentLogger;
    const saved = deps.sink?.loadTradingState();
    this.rec = saved && saved.state in SEVERITY ? { ...saved } : { state: 'active', since: deps.clock.now() };
  }

  get state(): TradingStateName {
    return this.rec.state;
  }

  get record(): Readonly<TradingStateRecord> {
    return this.rec;
  }

  /** Stop everything but cancels (kill switch). */
  halt(reason: string): void {
    this.set('halted', reason);
  }

  /** Only intents that reduce exposure pass. */
  reduce(reason: string): void {
    this.set('reducing', reason);
  }

  /** Back to active: the only way out of reducing or halted. */
  resume(reason = 'resumed by the operator'): void {
    this.set('active', reason);
  }

  /** Move to a stricter state; never to a looser one (what protections call). Returns true on a change. */
  escalate(target: TradingStateName, reason: string): boolean {
    if (SEVERITY[target] <= SEVERITY[this.rec.state]) return false;
    this.set(target, reason);
    return true;
  }

  private set(state: TradingStateName, reason: string): void {
    if (state === this.rec.state && reason === this.rec.reason) return;
    const previous = this.rec;
    this.rec = { state, reason, since: this.deps.clock.now() };
    this.deps.sink?.saveTradingState(this.rec);
    // Called on the logger (pino's methods read `this`): never taken off it as a bare function.
    const fields = { state, previous: previous.state, reason };
    const msg = `trading state ${previous.state} -> ${state}: ${reason}`;
    if (state === 'active') this.logger.info(fields, msg);
    else this.logger.warn(fields, msg);
    this.emit('change', this.rec, previous);
  }
}
