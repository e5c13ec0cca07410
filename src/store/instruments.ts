/**
 * The instruments (base and quote) of the markets a journal's orders trade, as the bot's market
 * catalog said when it ran. Offline readers (`mizan journal pnl`) split a symbol with them, never
 * by its suffix. Kept in the kv table under the reserved `__instruments` namespace (no schema change).
 */
import { Decimal } from '../core/decimal.js';
import type { Instrument } from '../core/instrument.js';
import type { Journal } from './journal.js';
import type { JournalQueries } from './queries.js';

const NS = '__instruments';

/** A market as a journal records it: its instrument and, when the catalog gives it, its smallest sellable quantity. */
export type RecordedInstrument = Instrument & { minSellable?: Decimal };

/**
 * Record the instruments of the markets a run trades, with each market's smallest sellable quantity
 * (the portfolio's dust rule: `mizan journal pnl` books the fills as the run did). Those already
 * recorded alike are left as they are.
 */
export function recordInstruments(journal: Journal, instruments: Iterable<readonly [string, RecordedInstrument]>): void {
  const raw = journal.kvAll(NS);
  for (const [symbol, i] of instruments) {
    const had = raw[symbol] as { base?: unknown; quote?: unknown; minSellable?: unknown } | null | undefined;
    const min = i.minSellable?.toFixed();
    if (had && had.base === i.base && had.quote === i.quote && had.minSellable === min) continue;
    journal.kvSet(NS, symbol, { base: i.base, quote: i.quote, ...(min !== undefined ? { minSellable: min } : {}) });
  }
}

/** The smallest sellable quantity per market a journal recorded (markets recorded without one are absent). */
export function journalMinSellable(journal: JournalQueries): Map<string, Decimal> {
  const out = new Map<string, Decimal>();
  for (const [symbol, v] of Object.entries(journal.kvAll(NS))) {
    const m = (v as { minSellable?: unknown } | null)?.minSellable;
    if (typeof m === 'string' && /^\d+(\.\d+)?$/.test(m)) out.set(symbol, new Decimal(m));
  }
  return out;
}

/** The instruments a journal recorded, by symbol. */
export function journalInstruments(journal: JournalQueries): Map<string, Instrument> {
  const out = new Map<string, Instrument>();
  for (const [symbol, v] of Object.entries(journal.kvAll(NS))) {
    const o = v as Partial<Instrument> | null;
    if (o && typeof o.base === 'string' && typeof o.quote === 'string') out.set(symbol, { base: o.base, quote: o.quote });
  }
  return out;
}

/**
 * `BTCUSDT=BTC/USDT` (the command line's `--market`) as a symbol and its instrument; an error naming
 * the value otherwise.
 */
export function parseInstrumentArg(text: string): [string, Instrument] {
  const m = /^([A-Za-z0-9]+)=([A-Za-z0-9]+)\/([A-Za-z0-9]+)$/.exec(text.trim());
  if (!m || `${m[2]}${m[3]}`.toUpperCase() !== m[1]!.toUpperCase()) {
    throw new RangeError(`--market ${JSON.stringify(text)}: expected SYMBOL=BASE/QUOTE with SYMBOL the base then the quote, e.g. BTCUSDT=BTC/USDT`);
  }
  return [m[1]!.toUpperCase(), { base: m[2]!.toUpperCase(), quote: m[3]!.toUpperCase() }];
}
