/**
 * The private channel of the wire server. The real exchange hands a `stream_key` to a logged-in web
 * session; the simulator issues one per account instead: `StreamKeys.issue(accountId)` in code, or
 * `POST /__sim/stream-key` (the account's API key in `x-api-key`, or `{accountId}` in the body).
 * A client that subscribes `<stream_key>` gets the account's `orderSaved` and `balanceUpdated`
 * events there, and `<stream_key>@tradeDetails` its fills, on `Broadcaster` as `(channel, {event,
 * timestamp, data})`, in the shapes of the exchange's documentation (amounts as strings). An unknown
 * key subscribes nothing and gets nothing (the exchange gives no error either).
 *
 * Order of events for one simulator call: each fill's `tradeDetails`, then the order's
 * `orderSaved`, then `balanceUpdated` for the order's two assets.
 */
import { randomBytes } from 'node:crypto';
import type { SimulatedExchange } from '../exchange.js';
import type { SimFill, SimOrder } from '../order-types.js';
import { ASSET_FA_NAMES } from '../markets.js';
import { SimError } from '../errors.js';
import { ok, type Route } from './route.js';
import { amount } from './format.js';

const TRADE_DETAILS_SUFFIX = '@tradeDetails';

export class StreamKeys {
  private readonly byKey = new Map<string, string>();
  private readonly byAccount = new Map<string, string>();

  /** The account's stream key, issued on first use (or set to `key`). */
  issue(accountId: string, key?: string): string {
    const existing = this.byAccount.get(accountId);
    if (existing !== undefined && (key === undefined || key === existing)) return existing;
    if (existing !== undefined) this.byKey.delete(existing);
    const k = key ?? randomBytes(18).toString('hex');
    if (!/^[A-Za-z0-9_-]{6,64}$/.test(k)) throw new SimError(422, 'stream key must be 6 to 64 letters, digits, _ or -');
    this.byKey.set(k, accountId);
    this.byAccount.set(accountId, k);
    return k;
  }

  /** The account of a key, or undefined. */
  accountOf(key: string): string | undefined {
    return this.byKey.get(key);
  }

  keyOf(accountId: string): string | undefined {
    return this.byAccount.get(accountId);
  }
}

function orderSavedData(o: SimOrder): Record<string, unknown> {
  return {
    symbol: o.symbol,
    type: o.type,
    side: o.side,
    clientOrderId: o.clientOrderId,
    price: amount(o.price),
    origQty: amount(o.origQty),
    executedQty: amount(o.executedQty),
    executedSum: amount(o.executedSum),
    status: o.status,
    active: o.active,
  };
}

function tradeDetailsData(f: SimFill): Record<string, unknown> {
  return {
    clientOrderID: f.clientOrderId,
    feeAmount: f.fee.toFixed(),
    feeCurrency: f.feeAsset,
    isMaker: f.isMaker,
    price: f.price.toFixed(),
    quantity: f.quantity.toFixed(),
    side: f.isBuyer ? 'BUY' : 'SELL',
    sum: f.sum.toFixed(),
    symbol: f.symbol,
  };
}

function balanceData(sim: SimulatedExchange, accountId: string, assets: string[]): Record<string, unknown> {
  const all = sim.balances(accountId);
  const out: Record<string, unknown> = {};
  for (const asset of assets) {
    const b = all[asset];
    out[asset] = { asset, faName: ASSET_FA_NAMES[asset] ?? asset, value: b ? b.value.toFixed() : '0', locked: b ? b.locked.toFixed() : '0' };
  }
  return out;
}

type Publish = (channel: string, build: () => unknown) => void;

/** Follow the sim's order and fill events and publish them on the owning account's channels. */
export function followAccounts(sim: SimulatedExchange, keys: StreamKeys, publish: Publish): () => void {
  const envelope = (event: string, data: unknown) => ({ event, timestamp: sim.clock.now(), data });
  const onFill = (f: SimFill) => {
    const key = keys.keyOf(f.accountId);
    if (key !== undefined) publish(key + TRADE_DETAILS_SUFFIX, () => envelope('tradeDetails', tradeDetailsData(f)));
  };
  const onOrder = (o: SimOrder) => {
    const key = keys.keyOf(o.accountId);
    if (key === undefined) return;
    publish(key, () => envelope('orderSaved', orderSavedData(o)));
    const m = sim.market(o.symbol);
    if (m) publish(key, () => envelope('balanceUpdated', balanceData(sim, o.accountId, [m.baseAsset, m.quoteAsset])));
  };
  sim.on('fill', onFill);
  sim.on('order', onOrder);
  return () => {
    sim.off('fill', onFill);
    sim.off('order', onOrder);
  };
}

/** `POST /__sim/stream-key`: the stream key of the account behind `x-api-key` (or of `{accountId}`). */
export function streamKeyRoutes(sim: SimulatedExchange, keys: StreamKeys): Route[] {
  return [
    {
      method: 'POST',
      path: '/__sim/stream-key',
      handler: (req) => {
        const body = req.body as { accountId?: unknown; key?: unknown };
        const accountId = typeof body.accountId === 'string' ? body.accountId : sim.authenticate(req.headers['x-api-key'], req.ip, 'read');
        sim.balances(accountId); // throws for an unknown account
        const key = keys.issue(accountId, typeof body.key === 'string' ? body.key : undefined);
        return ok({ accountId, streamKey: key }, 201);
      },
    },
  ];
}
