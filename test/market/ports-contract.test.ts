/**
 * Compile-time contract: the exchange adapters satisfy the market-data ports (checked by tsc; the
 * runtime part only asserts the adapters' classes load and expose the methods the ports need).
 */
import { describe, expect, it } from 'vitest';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { StreamClient } from '../../src/exchange/stream/client.js';
import type { CandleHistorySource, DepthSource, MarketInfoSource, StreamPort } from '../../src/market/ports.js';

type Assignable<T, U extends T> = U;
export type RestIsDepthSource = Assignable<DepthSource, WallexRestClient>;
export type RestIsCandleSource = Assignable<CandleHistorySource, WallexRestClient>;
export type RestIsMarketInfoSource = Assignable<MarketInfoSource, WallexRestClient>;
export type StreamIsStreamPort = Assignable<StreamPort, StreamClient>;

describe('market-data ports', () => {
  it('are implemented by the REST and stream clients', () => {
    for (const m of ['getDepth', 'getCandles', 'getMarkets'] as const) expect(typeof WallexRestClient.prototype[m]).toBe('function');
    for (const m of ['on', 'off', 'subscribe'] as const) expect(typeof StreamClient.prototype[m]).toBe('function');
  });
});
