import { describe, it, expect } from 'vitest';
import { StreamClient } from '../../../src/exchange/stream/index.js';
import type { StreamPort } from '../../../src/market/ports.js';

describe('StreamClient and the market-data engine', () => {
  it('satisfies the StreamPort the engine consumes (checked by the compiler)', () => {
    const client = new StreamClient({ url: 'http://127.0.0.1:1' });
    const port: StreamPort = client;
    let stale = '';
    const onStale = (channel: string, reason: string): void => {
      stale = `${channel} ${reason}`;
    };
    port.on('channelStale', onStale);
    client.emit('channelStale', 'BTCUSDT@buyDepth', 'silent');
    port.off('channelStale', onStale);
    client.emit('channelStale', 'BTCUSDT@sellDepth', 'silent');
    expect(stale).toBe('BTCUSDT@buyDepth silent');
    expect(port.subscribe('btcusdt@buyDepth')).toBe('BTCUSDT@buyDepth');
    client.close();
  });
});
