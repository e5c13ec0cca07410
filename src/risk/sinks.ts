/**
 * Sinks for verdicts and the risk state: an in-memory one (tests, backtests) and an adapter over the
 * journal (src/store), typed structurally so this module does not depend on the store.
 */
import type { Intent, Verdict } from '../core/intents.js';
import type { ProtectionsMemo, RiskSink, TradingStateRecord } from './ports.js';
import type { RiskVerdict } from './types.js';

export class MemorySink implements RiskSink {
  readonly verdicts: RiskVerdict[] = [];
  tradingState: TradingStateRecord | undefined;
  protections: ProtectionsMemo | undefined;

  recordVerdict(verdict: RiskVerdict): void {
    this.verdicts.push(verdict);
  }
  saveTradingState(record: TradingStateRecord): void {
    this.tradingState = { ...record };
  }
  loadTradingState(): TradingStateRecord | undefined {
    return this.tradingState ? { ...this.tradingState } : undefined;
  }
  saveProtections(memo: ProtectionsMemo): void {
    this.protections = structuredClone(memo);
  }
  loadProtections(): ProtectionsMemo | undefined {
    return this.protections ? structuredClone(this.protections) : undefined;
  }
}

/** What the journal offers (Journal and JournalQueries of src/store fit). */
export interface JournalLike {
  recordDecision(verdict: Verdict<Intent>): number;
  setTradingState(record: TradingStateRecord): void;
  kvSet(strategy: string, key: string, value: unknown): void;
}

export interface JournalReader {
  tradingState(): TradingStateRecord | undefined;
  kvGet(strategy: string, key: string): unknown;
}

/** The key-value slot the protections' counters are kept under. */
const RISK_KV = { strategy: '__risk', key: 'protections' } as const;
/** The key-value slot the bot's order-rate window is kept under. */
const ORDER_RATE_KV = { strategy: '__risk', key: 'orderRate' } as const;

export function journalRiskSink(journal: JournalLike, reader: JournalReader): RiskSink {
  return {
    recordVerdict: (v) => {
      journal.recordDecision(v);
    },
    saveTradingState: (r) => journal.setTradingState(r),
    loadTradingState: () => reader.tradingState(),
    saveProtections: (m) => journal.kvSet(RISK_KV.strategy, RISK_KV.key, m),
    saveOrderRate: (times) => journal.kvSet(ORDER_RATE_KV.strategy, ORDER_RATE_KV.key, times),
    loadOrderRate: () => {
      const v = reader.kvGet(ORDER_RATE_KV.strategy, ORDER_RATE_KV.key);
      return Array.isArray(v) ? v.filter((t): t is number => typeof t === 'number') : undefined;
    },
    loadProtections: () => {
      const v = reader.kvGet(RISK_KV.strategy, RISK_KV.key);
      if (!v || typeof v !== 'object') return undefined;
      const o = v as Partial<ProtectionsMemo>;
      const memo: ProtectionsMemo = { losingStreak: o.losingStreak ?? {}, cooldownUntil: o.cooldownUntil ?? {}, stoplossExits: o.stoplossExits ?? [] };
      if (typeof o.peak === 'string') memo.peak = o.peak;
      if (typeof o.day === 'string') memo.day = o.day;
      if (typeof o.dayStart === 'string') memo.dayStart = o.dayStart;
      return memo;
    },
  };
}
