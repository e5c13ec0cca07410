/**
 * The live venue: the exchange's REST API through WallexRestClient. A trading-credit account is
 * a venue over `client.withSubAccount(id)`, so every call carries `sub-account-client-id`.
 * Withdrawals are not part of the Venue interface: nothing that executes intents can reach them.
 */
import type { Decimal } from '../core/decimal.js';
import type {
  Balances,
  InstantOrder,
  MarginDryRun,
  MarginOrder,
  MarginPosition,
  MarginPositionFilter,
  MarginRequest,
  NewInstantOrder,
  NewSpotOrder,
  Side,
  SpotOrder,
} from '../core/types/index.js';
import type { WallexRestClient } from '../exchange/rest/client.js';
import type { Venue } from '../execution/venue.js';

export class RestVenue implements Venue {
  readonly kind = 'live';
  constructor(private readonly client: WallexRestClient) {}

  createOrder(order: NewSpotOrder): Promise<SpotOrder> {
    return this.client.createOrder(order);
  }
  getOrder(clientOrderId: string): Promise<SpotOrder> {
    return this.client.getOrder(clientOrderId);
  }
  cancelOrder(clientOrderId: string): Promise<SpotOrder> {
    return this.client.cancelOrder(clientOrderId);
  }
  async openOrders(symbol?: string): Promise<SpotOrder[]> {
    const out: SpotOrder[] = [];
    for (let page = 1; page <= 50; page++) {
      const r = await this.client.getOpenOrders({ ...(symbol ? { symbol } : {}), page, perPage: 100 });
      out.push(...r.items);
      const info = r.pageInfo;
      if (!info || r.items.length === 0 || info.page * info.perPage >= info.totalCount) break;
    }
    return out;
  }
  balances(): Promise<Balances> {
    return this.client.getBalances();
  }
  instantOrder(order: NewInstantOrder): Promise<InstantOrder> {
    return this.client.createInstantOrder(order);
  }
  async instantQuote(symbol: string, side: Side): Promise<Decimal> {
    return (await this.client.getInstantQuote(symbol, side)).price;
  }
  previewPosition(req: MarginRequest): Promise<MarginDryRun> {
    return this.client.marginDryRun(req);
  }
  openPosition(req: MarginRequest): Promise<MarginPosition> {
    return this.client.openMarginPosition(req);
  }
  addCollateral(positionId: number, amount: Decimal): Promise<MarginPosition> {
    return this.client.addMarginCollateral(positionId, amount);
  }
  closePosition(positionId: number, price: Decimal): Promise<MarginPosition> {
    return this.client.closeMarginPosition(positionId, price);
  }
  setBrackets(positionId: number, b: { stopLoss?: Decimal; takeProfit?: Decimal }): Promise<MarginPosition> {
    return this.client.setMarginBrackets(positionId, b);
  }
  positions(filter?: MarginPositionFilter): Promise<MarginPosition[]> {
    return this.client.getMarginPositions(filter);
  }
  position(positionId: number): Promise<MarginPosition> {
    return this.client.getMarginPosition(positionId);
  }
  async marginOrders(positionId: number): Promise<MarginOrder[]> {
    return (await this.client.getMarginOrders({ positionId })).items;
  }
}
