import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger, scrub } from '../../src/runtime/logger.js';

function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { stream, lines };
}

describe('createLogger', () => {
  const key = 'sk_live_0123456789abcdef';
  it('never prints a registered secret, in fields, nested objects or messages', () => {
    const { stream, lines } = capture();
    const log = createLogger({ pretty: false, secrets: [key], destination: stream, level: 'debug' });
    log.info({ apiKey: key }, 'starting');
    log.warn({ req: { headers: { 'x-api-key': key } } }, 'request');
    log.error({ err: new Error(`echo ${key}`) }, `failed with ${key}`);
    log.child({ k: key }).debug('child');
    expect(lines.length).toBe(4);
    for (const l of lines) expect(l).not.toContain(key);
    expect(lines.join('')).toContain('[REDACTED]');
  });
  it('redacts stream-key fields even when the key is not registered, and scrubs a registered one inside channel names', () => {
    const streamKey = 'streamkey_9f8e7d6c5b4a3921';
    const { stream, lines } = capture();
    createLogger({ pretty: false, destination: stream }).info({ streamKey, cfg: { privateKey: streamKey } }, 'fields');
    createLogger({ pretty: false, secrets: [key, streamKey], destination: stream }).warn({ channels: [streamKey, `${streamKey}@tradeDetails`] }, 'channels');
    expect(lines.length).toBe(2);
    for (const l of lines) expect(l).not.toContain(streamKey);
    expect(lines[1]).toContain('[REDACTED]@tradeDetails');
  });
  it('writes JSON when not pretty', () => {
    const { stream, lines } = capture();
    createLogger({ pretty: false, destination: stream }).info({ a: 1 }, 'hello');
    const obj = JSON.parse(lines[0]!);
    expect(obj).toMatchObject({ a: 1, msg: 'hello', level: 30 });
  });
  it('scrub ignores very short secrets rather than mangling output', () => {
    expect(scrub('abc abc', ['abc'])).toBe('abc abc');
    expect(scrub('x secret-value y', ['secret-value'])).toBe('x [REDACTED] y');
  });
  it('prints each key once: a child rebinding a key, and a call repeating a bound field (the call wins)', () => {
    const { stream, lines } = capture();
    const root = createLogger({ pretty: false, destination: stream });
    const stream1 = root.child({ component: 'stream' }).child({ component: 'stream', conn: 0 });
    stream1.info('up');
    const strat = root.child({ strategy: 'btc-sma' });
    strat.error({ strategy: 'btc-sma', event: 'candle' }, 'strategy handler failed');
    strat.warn({ strategy: 'other' }, 'about another');
    root.child({ component: 'risk' }).child({ component: 'exec' }).info('moved');
    const count = (l: string, k: string) => l.split(`"${k}":`).length - 1;
    expect(count(lines[0]!, 'component')).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ component: 'stream', conn: 0, msg: 'up' });
    expect(count(lines[1]!, 'strategy')).toBe(1);
    expect(JSON.parse(lines[1]!)).toMatchObject({ strategy: 'btc-sma', event: 'candle' });
    expect(count(lines[2]!, 'strategy')).toBe(1);
    expect(JSON.parse(lines[2]!)).toMatchObject({ strategy: 'other' });
    expect(count(lines[3]!, 'component')).toBe(1);
    expect(JSON.parse(lines[3]!)).toMatchObject({ component: 'exec' });
  });
  it('level methods work detached from the logger (a handler may keep log.warn)', () => {
    const { stream, lines } = capture();
    const { warn } = createLogger({ pretty: false, destination: stream }).child({ strategy: 's' });
    warn({ a: 1 }, 'detached');
    expect(JSON.parse(lines[0]!)).toMatchObject({ strategy: 's', a: 1, msg: 'detached' });
  });
});
