/**
 * From a raw payload to the typed event of its channel. Parsing happens only while someone listens
 * to that event (the raw `message` event is always emitted by the client). A parse failure is
 * returned, not thrown, so the caller can count it; an exception from a listener propagates.
 */
import type { EventEmitter } from 'eventemitter3';
import type { BookLevel, MarketStats, PriceTick, PublicTrade } from '../../core/types/market.js';
import type { ChannelInfo } from './channels.js';
import type { StreamClientEvents } from './events.js';
import { type ParseCaches, type RawDepthLevel, parseDepth, parseMarketStats, parsePriceTicks, parseTrade, rawDepth } from './parse.js';

/** Emits the typed event; returns the parse error of a malformed payload, else undefined. */
export function dispatchParsed(emitter: EventEmitter<StreamClientEvents>, info: ChannelInfo, data: unknown, caches: ParseCaches, depthSums: boolean): unknown {
  switch (info.kind) {
    case 'depth': {
      const side = info.side === 'ask' ? 'ask' : 'bid';
      if (emitter.listenerCount('depthRaw') > 0) {
        let raw: RawDepthLevel[];
        try {
          raw = rawDepth(data);
        } catch (err) {
          return err;
        }
        emitter.emit('depthRaw', info.symbol, side, raw);
      }
      if (emitter.listenerCount('depth') === 0) return undefined;
      let levels: BookLevel[];
      try {
        levels = parseDepth(data, depthSums, caches);
      } catch (err) {
        return err;
      }
      emitter.emit('depth', info.symbol, side, levels);
      return undefined;
    }
    case 'trade': {
      if (emitter.listenerCount('trade') === 0) return undefined;
      let trade: PublicTrade;
      try {
        trade = parseTrade(info.symbol, data, caches);
      } catch (err) {
        return err;
      }
      emitter.emit('trade', trade);
      return undefined;
    }
    case 'marketCap': {
      if (emitter.listenerCount('marketCap') === 0) return undefined;
      let stats: MarketStats;
      try {
        stats = parseMarketStats(data, caches);
      } catch (err) {
        return err;
      }
      emitter.emit('marketCap', info.symbol, stats);
      return undefined;
    }
    case 'price': {
      if (emitter.listenerCount('price') === 0) return undefined;
      let ticks: PriceTick[];
      try {
        ticks = parsePriceTicks(data, caches);
      } catch (err) {
        return err;
      }
      for (const tick of ticks) emitter.emit('price', tick);
      return undefined;
    }
  }
}
