/**
 * Which strategy owns which margin position. Positions on the exchange carry no strategy, so the
 * owner is learnt when the position is opened: every passed `marginOpen` verdict is noted
 * (`noteVerdict`, fed from the trading core's decision journal port), and the venue wrapped by
 * `wrapVenue` matches the `openPosition` request it receives to that intent and records the id the
 * exchange returns. The executor hands the intent's own Decimal objects to the venue, so the match
 * is by identity (two strategies opening the same amounts at once are still told apart); a request
 * built elsewhere falls back to the first noted intent with equal values.
 *
 * With a `store` (the journal's key-value table) the map survives a restart. `fallback` names an
 * owner for positions opened outside the bot (e.g. the only strategy trading that market).
 *
 * The exchange's create call takes no client id, so a position whose answer never came (the bot
 * killed mid-request, a timeout) could not be told apart from one opened by hand. With a store and
 * a clock, the wrapped venue therefore writes a record of the open (strategy, account, market, side,
 * collateral, risk_coef, open price, time) before the request is sent, and settles it when the
 * answer arrives: the owner recorded on success, dropped on a refusal that proves nothing was opened.
 * A record left unsettled (the bot stopped before the answer, or one that says nothing of the
 * outcome) is matched at the next start (`reconcile`, margin-open-records.ts) to the exchange's
 * positions of that account opened at or after its time with the same market and side and no owner:
 * exactly one is the strategy's; none means the open did not happen; several are named in a warning
 * and none is owned (never a guess).
 */
import type { Decimal } from '../core/decimal.js';
import type { Intent, MarginOpenIntent, Verdict } from '../core/intents.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MarginPosition, MarginRequest } from '../core/types/margin.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { matchOpen, nothingOpened, readOpenRecords, type OpenRecord } from './margin-open-records.js';

export interface OwnerStore {
  get(key: string): unknown;
  set(key: string, value: Record<string, unknown>): void;
}

export interface PositionOwnersOptions {
  store?: OwnerStore;
  fallback?: (position: MarginPosition) => string | undefined;
  /** The clock's time (ms): with a store, each open is recorded at this time before it is sent. */
  now?: () => number;
  logger?: Logger;
}

const KEY = 'marginOwners';
/** Opens sent whose answer has not been taken in yet (write-ahead records), by record id. */
const OPENS_KEY = 'marginOpensInFlight';
/** Noted intents waiting for their venue call; older ones are dropped past this many. */
const MAX_PENDING = 256;

const same = (a: Decimal | undefined, b: Decimal | undefined) => (a === undefined ? b === undefined : b !== undefined && a.eq(b));

export class PositionOwners {
  private readonly owners = new Map<number, string>();
  private readonly pending: MarginOpenIntent[] = [];
  /** Positions recorded in this run that no list given to `prune` has held yet (the account not synced since). */
  private readonly unlisted = new Set<number>();
  /** Write-ahead records of margin opens not settled yet (this run's in flight, and an earlier run's). */
  private readonly opens = new Map<string, OpenRecord>();
  /** Records of this run whose request is still awaiting its answer (never reconciled meanwhile). */
  private readonly inFlight = new Set<string>();
  private seq = 0;
  private readonly log: Logger;

  constructor(private readonly opts: PositionOwnersOptions = {}) {
    this.log = opts.logger ?? silentLogger;
    const saved = opts.store?.get(KEY);
    if (saved && typeof saved === 'object') {
      for (const [id, s] of Object.entries(saved as Record<string, unknown>)) {
        if (typeof s === 'string' && Number.isInteger(Number(id))) this.owners.set(Number(id), s);
      }
    }
    for (const r of readOpenRecords(opts.store?.get(OPENS_KEY))) this.opens.set(r.id, r);
  }

  /** A verdict of the risk engine: a passed margin open is remembered until its venue call. */
  noteVerdict(v: Verdict<Intent>): void {
    if (!v.ok || v.intent.kind !== 'marginOpen') return;
    this.pending.push(v.intent);
    if (this.pending.length > MAX_PENDING) this.pending.shift();
  }

  /** Record an owner by hand (a position opened directly on the desk, recovery). */
  set(positionId: number, strategy: string): void {
    this.owners.set(positionId, strategy);
    this.unlisted.add(positionId);
    this.persist();
  }

  /** Whether this bot has opened a position it still holds on record. */
  get anyOpened(): boolean {
    return this.owners.size > 0;
  }

  /** The ids of the positions this bot opened that are on record. */
  openedIds(): number[] {
    return [...this.owners.keys()];
  }

  /** The strategy of this bot that opened the position, when it was this bot (no fallback). */
  opener(positionId: number): string | undefined {
    return this.owners.get(positionId);
  }

  owner(position: MarginPosition): string | undefined {
    return this.owners.get(position.id) ?? this.opts.fallback?.(position);
  }

  /**
   * Forget positions that are no longer open (keeps the stored map small). A position recorded in this
   * run is kept until a list has held it once: a list read before its open was synced (a price update
   * between the open and the account's next read) does not end it.
   */
  prune(open: readonly MarginPosition[]): void {
    const live = new Set(open.map((p) => p.id));
    let changed = false;
    for (const id of this.owners.keys()) {
      if (live.has(id)) this.unlisted.delete(id);
      else if (!this.unlisted.has(id)) {
        this.owners.delete(id);
        changed = true;
      }
    }
    if (changed) this.persist();
  }

  /** The accounts with an open whose outcome is not known (an earlier run's, or one whose answer said nothing). */
  unsettledAccounts(): string[] {
    return [...new Set([...this.opens.values()].filter((r) => !this.inFlight.has(r.id)).map((r) => r.account))];
  }

  /** The unsettled open records (not those of requests awaiting their answer now). */
  unsettled(): OpenRecord[] {
    return [...this.opens.values()].filter((r) => !this.inFlight.has(r.id));
  }

  /**
   * Settle the unsettled opens of `account` against its positions as the exchange lists them (all
   * states: one closed since still was opened): each record owns the one position of its market and
   * side opened at or after its time that has no owner; with none it did not happen, with several
   * none is owned and a warning names them. Every record of the account is settled (dropped) here.
   */
  reconcile(account: string, positions: readonly MarginPosition[]): void {
    const recs = this.unsettled().filter((r) => r.account === account);
    if (!recs.length) return;
    for (const r of recs) {
      const m = matchOpen(r, positions, (id) => this.owners.has(id));
      const fields = {
        account,
        strategy: r.strategy,
        market: r.market,
        side: r.side,
        collateral: r.collateral,
        riskCoef: r.riskCoef,
        sentAt: new Date(r.at).toISOString(),
      };
      if (m.length === 1) {
        this.owners.set(m[0]!.id, r.strategy);
        this.unlisted.add(m[0]!.id);
        this.log.info({ ...fields, positionId: m[0]!.id }, `margin open sent before the stop matched: position #${m[0]!.id} is ${r.strategy}'s`);
      } else if (m.length === 0) {
        this.log.warn(
          fields,
          `margin open sent before the stop did not happen: no ${r.market} ${r.side} position without an owner was opened since it was sent`,
        );
      } else {
        const ids = m.map((p) => `#${p.id}`).join(', ');
        this.log.warn(
          { ...fields, positionIds: m.map((p) => p.id) },
          `margin open sent before the stop: ${m.length} ${r.market} ${r.side} positions without an owner were opened since it was sent (${ids}); none is taken as ${r.strategy}'s`,
        );
      }
      this.opens.delete(r.id);
    }
    this.persist();
    this.persistOpens();
  }

  /**
   * A running bot's sync of `account`'s active positions: an open whose answer was lost (a timeout)
   * is settled when exactly one position of its market and side, opened since, has no owner; else
   * it waits (the next sync, the next start). Nothing is concluded from an absence here: the list
   * holds only active positions, and may not show a new one yet.
   */
  matchSynced(account: string, positions: readonly MarginPosition[]): void {
    let changed = false;
    // An open of the same market and side awaiting its answer may be the unowned one listed.
    const waiting = [...this.inFlight].map((id) => this.opens.get(id));
    for (const r of this.unsettled()) {
      if (r.account !== account) continue;
      if (waiting.some((w) => w && w.account === r.account && w.market === r.market && w.side === r.side)) continue;
      const m = matchOpen(r, positions, (id) => this.owners.has(id));
      if (m.length !== 1) continue;
      this.owners.set(m[0]!.id, r.strategy);
      this.unlisted.add(m[0]!.id);
      this.opens.delete(r.id);
      changed = true;
      this.log.info(
        { account, strategy: r.strategy, market: r.market, side: r.side, positionId: m[0]!.id },
        `margin open without its answer matched: position #${m[0]!.id} is ${r.strategy}'s`,
      );
    }
    if (!changed) return;
    this.persist();
    this.persistOpens();
  }

  /** The venue (of `account`) with `openPosition` recording the owner of the position it opens. */
  wrapVenue<V extends { openPosition(req: MarginRequest): Promise<MarginPosition> }>(venue: V, account = MAIN_ACCOUNT): V {
    const open = venue.openPosition.bind(venue);
    const openPosition = async (req: MarginRequest): Promise<MarginPosition> => {
      const intent = this.take(req);
      const rec = intent ? this.writeAhead(intent.strategy, account, req) : undefined;
      let p: MarginPosition;
      try {
        p = await open(req);
      } catch (err) {
        if (rec) this.failed(rec, err);
        throw err;
      }
      if (intent) {
        this.owners.set(p.id, intent.strategy);
        this.unlisted.add(p.id);
        this.persist();
      }
      if (rec) this.settle(rec);
      return p;
    };
    // Every other member reads through to the venue; its methods are bound to it once (not on every
    // call: each order passes here) and bound again only if the venue replaces one.
    const bound = new Map<PropertyKey, { fn: unknown; bound: unknown }>();
    return new Proxy(venue, {
      get(target, prop) {
        if (prop === 'openPosition') return openPosition;
        const v: unknown = Reflect.get(target, prop, target);
        if (typeof v !== 'function') return v;
        const b = bound.get(prop);
        if (b && b.fn === v) return b.bound;
        const f = (v as (...a: unknown[]) => unknown).bind(target);
        bound.set(prop, { fn: v, bound: f });
        return f;
      },
    });
  }

  private take(req: MarginRequest): MarginOpenIntent | undefined {
    let i = this.pending.findIndex((x) => x.collateral === req.collateral && x.riskCoef === req.riskCoef);
    if (i < 0) {
      i = this.pending.findIndex(
        (x) =>
          x.market === req.market && x.side === req.side && x.collateral.eq(req.collateral) && x.riskCoef.eq(req.riskCoef) && same(x.openPrice, req.openPrice),
      );
    }
    if (i < 0) return undefined;
    return this.pending.splice(i, 1)[0];
  }

  /** The write-ahead record of an open about to be sent (only with a store and a clock: something to survive). */
  private writeAhead(strategy: string, account: string, req: MarginRequest): OpenRecord | undefined {
    if (!this.opts.store || !this.opts.now) return undefined;
    const at = this.opts.now();
    const r: OpenRecord = {
      id: `${at}-${++this.seq}`,
      strategy,
      account,
      market: req.market,
      side: req.side,
      collateral: req.collateral.toFixed(),
      riskCoef: req.riskCoef.toFixed(),
      openPrice: req.openPrice.toFixed(),
      at,
    };
    this.opens.set(r.id, r);
    this.inFlight.add(r.id);
    this.persistOpens();
    return r;
  }

  private settle(r: OpenRecord): void {
    this.inFlight.delete(r.id);
    this.opens.delete(r.id);
    this.persistOpens();
  }

  /** The request failed: a refusal proves nothing was opened; any other failure leaves the outcome to the next start. */
  private failed(r: OpenRecord, err: unknown): void {
    if (nothingOpened(err)) return this.settle(r);
    this.inFlight.delete(r.id);
    this.log.warn(
      { account: r.account, strategy: r.strategy, market: r.market, side: r.side, err: err instanceof Error ? err.message : String(err) },
      'margin open: the outcome is unknown (no answer); the next account read (or the next start) matches it to the exchange positions',
    );
  }

  private persistOpens(): void {
    if (!this.opts.store) return;
    const out: Record<string, OpenRecord> = {};
    for (const [id, r] of this.opens) out[id] = r;
    this.opts.store.set(OPENS_KEY, out);
  }

  private persist(): void {
    if (!this.opts.store) return;
    const out: Record<string, string> = {};
    for (const [id, s] of this.owners) out[String(id)] = s;
    this.opts.store.set(KEY, out);
  }
}
