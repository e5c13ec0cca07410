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
 */
import type { Decimal } from '../core/decimal.js';
import type { Intent, MarginOpenIntent, Verdict } from '../core/intents.js';
import type { MarginPosition, MarginRequest } from '../core/types/margin.js';

export interface OwnerStore {
  get(key: string): unknown;
  set(key: string, value: Record<string, string>): void;
}

export interface PositionOwnersOptions {
  store?: OwnerStore;
  fallback?: (position: MarginPosition) => string | undefined;
}

const KEY = 'marginOwners';
/** Noted intents waiting for their venue call; older ones are dropped past this many. */
const MAX_PENDING = 256;

const same = (a: Decimal | undefined, b: Decimal | undefined) => (a === undefined ? b === undefined : b !== undefined && a.eq(b));

export class PositionOwners {
  private readonly owners = new Map<number, string>();
  private readonly pending: MarginOpenIntent[] = [];
  /** Positions recorded in this run that no list given to `prune` has held yet (the account not synced since). */
  private readonly unlisted = new Set<number>();

  constructor(private readonly opts: PositionOwnersOptions = {}) {
    const saved = opts.store?.get(KEY);
    if (saved && typeof saved === 'object') {
      for (const [id, s] of Object.entries(saved as Record<string, unknown>)) {
        if (typeof s === 'string' && Number.isInteger(Number(id))) this.owners.set(Number(id), s);
      }
    }
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

  /** The venue with `openPosition` recording the owner of the position it opens. */
  wrapVenue<V extends { openPosition(req: MarginRequest): Promise<MarginPosition> }>(venue: V): V {
    const open = venue.openPosition.bind(venue);
    const openPosition = async (req: MarginRequest): Promise<MarginPosition> => {
      const intent = this.take(req);
      const p = await open(req);
      if (intent) this.set(p.id, intent.strategy);
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

  private persist(): void {
    if (!this.opts.store) return;
    const out: Record<string, string> = {};
    for (const [id, s] of this.owners) out[String(id)] = s;
    this.opts.store.set(KEY, out);
  }
}
