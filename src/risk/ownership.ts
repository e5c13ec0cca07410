/**
 * What a strategy may sell of an asset: the account's free balance less what the *other* strategies
 * trading on that account hold of it. Every strategy of a bot shares the account's coins, but a spot
 * position is one strategy's (the portfolio books it per strategy and market): a sell of coins another
 * strategy bought leaves that strategy's position counting coins the account no longer has, so it can
 * never close it and its trade stays open, valued at coins that are gone.
 *
 *   may sell = free − Σ over the other strategies on the account of max(0, held − in their open sells)
 *
 * - free: value − locked − reserved, as the balance rule reads it (reservations.ts);
 * - held: the other strategy's positions in every market with that base (its dust included: the coins
 *   its sells left below the market's minimum are still its round trips');
 * - in their open sells: what its live sell orders in those markets still have to sell (quantity −
 *   filled, brackets' exits included) and its instant sells in flight. Those coins are already out of
 *   `free` (locked or reserved), so they are not subtracted a second time.
 * Coins no strategy holds (the starting balances: a market maker's or a grid's inventory) stay usable by
 * any strategy, and so do those of a strategy the bot no longer has (renamed or removed: a restart reads
 * its fills back from the journal, and nothing would ever sell them otherwise). The risk module reads this in the ownership rule (rules/ownership.ts) and when it sizes
 * a sell by a fraction of the free balance (rules/market-limits.ts), in every mode alike.
 */
import { Decimal } from '../core/decimal.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import type { RiskPorts } from './ports.js';
import type { Reservations } from './reservations.js';

const ZERO = new Decimal(0);

export interface Sellable {
  /** The account's free balance of the asset (value − locked − reserved; may be negative). */
  free: Decimal;
  /** The other strategies holding some of it outside their open sells, in the order first met, with that amount. */
  others: { strategy: string; holds: Decimal }[];
  /** What the strategy may sell: free less the others' holdings, at least 0; `free` itself when no other strategy holds any. */
  may: Decimal;
}

/** What `strategy`, trading on `account`, may sell of `asset` (see the file comment). */
export function sellable(ports: RiskPorts, reservations: Reservations, account: string, strategy: string, asset: string): Sellable {
  const free = reservations.free(account, asset, ports.balance(account, asset));
  const accountOf = (s: string): string => ports.accountOf?.(s) ?? MAIN_ACCOUNT;
  const baseOf = (symbol: string): string | undefined => ports.market(symbol)?.base;
  let held: Map<string, Decimal> | undefined;
  for (const p of ports.positions?.() ?? []) {
    if (p.strategy === strategy || ports.isStrategy?.(p.strategy) === false) continue;
    const q = p.dust && !p.dust.isZero() ? p.quantity.plus(p.dust) : p.quantity;
    if (!q.gt(0) || baseOf(p.symbol) !== asset || accountOf(p.strategy) !== account) continue;
    held ??= new Map();
    held.set(p.strategy, (held.get(p.strategy) ?? ZERO).plus(q));
  }
  if (!held) return { free, others: [], may: free };
  for (const o of ports.openOrders?.() ?? []) {
    if (o.side !== 'SELL' || o.quantity === undefined || !held.has(o.strategy)) continue;
    if ((o.account ?? accountOf(o.strategy)) !== account || baseOf(o.symbol) !== asset) continue;
    const left = o.filled ? o.quantity.minus(o.filled) : o.quantity;
    if (left.gt(0)) held.set(o.strategy, held.get(o.strategy)!.minus(left));
  }
  // Instant (OTC) sells complete in one call and are no tracked order: their coins are in `reserved` meanwhile.
  for (const r of reservations.active()) {
    if (r.kind !== 'instant' || r.side !== 'SELL' || r.asset !== asset || r.account !== account || !held.has(r.strategy)) continue;
    held.set(r.strategy, held.get(r.strategy)!.minus(r.remaining));
  }
  const others: Sellable['others'] = [];
  let claimed = ZERO;
  for (const [s, q] of held) {
    if (!q.gt(0)) continue;
    others.push({ strategy: s, holds: q });
    claimed = claimed.plus(q);
  }
  if (others.length === 0) return { free, others, may: free };
  const may = free.minus(claimed);
  return { free, others, may: may.gt(0) ? may : ZERO };
}

/** `account free 0.293; buyer holds 0.293` (the numbers a denial of a sell gives). */
export function sellableText(x: Sellable): string {
  return `account free ${x.free.toFixed()}; ${x.others.map((o) => `${o.strategy} holds ${o.holds.toFixed()}`).join(', ')}`;
}
