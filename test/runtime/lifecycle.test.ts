import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { Lifecycle } from '../../src/runtime/lifecycle.js';

describe('Lifecycle: the shutdown order, declared once', () => {
  it('stops the parts last declared first, each once, and goes on past a part that fails', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
    const life = new Lifecycle(logger);
    const order: string[] = [];
    life.add('exchange', { stop: () => void order.push('exchange') });
    life.add('journal', { stop: () => void order.push('journal') });
    life.add('market data', {
      stop: () => {
        order.push('market data');
        throw new Error('socket already gone');
      },
    });
    life.add('strategies', { stop: async () => void order.push('strategies') });
    expect(life.names()).toEqual(['exchange', 'journal', 'market data', 'strategies']);
    await Promise.all([life.stop(), life.stop()]);
    await life.stop();
    expect(order).toEqual(['strategies', 'market data', 'journal', 'exchange']);
    expect(lines.join('')).toContain('"part":"market data"');
    expect(lines.join('')).toContain('socket already gone');
  });
});
