/**
 * The risk module with the real pino logger (issue 16.1): a protection breach, a halt and a resume
 * log their state change through pino without throwing (pino's methods need their logger as `this`).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { createLogger } from '../../src/runtime/logger.js';
import { World } from './fixtures.js';

function pinoLines() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, logger: createLogger({ destination, pretty: false, level: 'info' }) };
}

describe('trading state changes through the real pino logger', () => {
  it('a max-drawdown breach halts and logs; halt and resume log too', () => {
    const { lines, logger } = pinoLines();
    const w = new World();
    w.setBalance('USDT', '10000');
    const e = w.engine({ logger, protections: { maxDrawdownPct: 2, onBreach: 'halted' } });
    w.clock.advance(60_000);
    e.onEquity(w.clock.now(), d('10000'));
    w.clock.advance(60_000);
    expect(() => e.onEquity(w.clock.now(), d('9700'))).not.toThrow();
    expect(e.state.state).toBe('halted');
    expect(() => e.resume('operator')).not.toThrow();
    expect(() => e.halt('kill switch')).not.toThrow();
    const changes = lines.filter((l) => String(l.msg).startsWith('trading state '));
    expect(changes.map((l) => [l.level, l.state, l.previous])).toEqual([
      [40, 'halted', 'active'],
      [30, 'active', 'halted'],
      [40, 'halted', 'active'],
    ]);
    expect(String(changes[0]!.reason)).toContain('drawdown');
  });
});
