import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, SystemClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { registerRiskCommands } from '../../src/cli/risk.js';
import { RiskEngine } from '../../src/risk/engine.js';
import { journalRiskSink } from '../../src/risk/sinks.js';
import { watchTradingState, type TradingStateWatch } from '../../src/risk/state-watch.js';
import { Journal } from '../../src/store/journal.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-kill-'));
let n = 0;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function bot(file: string) {
  const journal = Journal.open(file, { clock: new SystemClock() });
  const risk = new RiskEngine({
    ports: { market: () => undefined, book: () => undefined, balance: () => undefined },
    clock: new SystemClock(),
    sink: journalRiskSink(journal, journal),
  });
  cleanups.push(() => journal.close());
  return { journal, risk };
}

async function cli(args: string[]): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  const program = new Command().exitOverride();
  registerRiskCommands(program, { out: (t) => void (out += t), err: (t) => void (err += t), clock: new ManualClock(Date.UTC(2025, 5, 1, 8, 0, 0)) });
  await program.parseAsync(args, { from: 'user' });
  return { out, err };
}

function watch(w: TradingStateWatch): TradingStateWatch {
  cleanups.push(() => w.stop());
  return w;
}

describe('kill switch: mizan halt / resume / status and the running bot', () => {
  it('a halt written by the CLI reaches the running engine within the interval; resume lifts it', async () => {
    const file = join(dir, `j${++n}.sqlite`);
    const { risk } = bot(file);
    const cancels: string[] = [];
    risk.on('cancelAllOrders', ({ reason }) => cancels.push(reason));
    watch(
      watchTradingState(
        (() => {
          const j = Journal.open(file, { readonly: true });
          cleanups.push(() => j.close());
          return j;
        })(),
        risk,
        { intervalMs: 20 },
      ),
    );
    expect(risk.state.state).toBe('active');

    const h = await cli(['halt', 'exchange', 'acting', 'up', '--file', file]);
    expect(h.err).toBe('');
    expect(h.out).toContain('trading state: halted since 2025-06-01T08:00:00.000Z (exchange acting up)');
    await vi.waitFor(() => expect(risk.state.state).toBe('halted'), { timeout: 10_000, interval: 10 });
    expect(risk.state.record.reason).toBe('exchange acting up');
    expect(cancels).toEqual(['exchange acting up']);
    // halted: a buy is denied by the trading state rule, a cancel passes
    const buy = risk.check({
      kind: 'order',
      strategy: 's',
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      size: { kind: 'base', quantity: d('1') },
      price: d('1'),
    });
    expect(buy.ok).toBe(false);
    expect(!buy.ok && buy.rule).toBe('tradingState');
    expect(risk.check({ kind: 'cancel', strategy: 's', clientOrderId: 'x' }).ok).toBe(true);

    expect((await cli(['status', '--file', file])).out).toMatch(/^trading state: halted since .* \(exchange acting up\)\n$/);

    await cli(['resume', '--file', file]);
    await vi.waitFor(() => expect(risk.state.state).toBe('active'), { timeout: 10_000, interval: 10 });
    expect(risk.state.record.reason).toBe('resumed from the command line');
    expect((await cli(['status', '--file', file])).out).toContain('trading state: active');
  });

  it('SIGUSR2 applies a change at once; the halt survives a restart', async () => {
    const file = join(dir, `j${++n}.sqlite`);
    const { risk } = bot(file);
    const reader = Journal.open(file);
    cleanups.push(() => reader.close());
    watch(watchTradingState(reader, risk, { signal: 'SIGUSR2' }));
    const other = Journal.open(file);
    other.setTradingState({ state: 'halted', reason: 'by hand', since: 1 });
    other.close();
    expect(risk.state.state).toBe('active');
    process.emit('SIGUSR2');
    expect(risk.state.state).toBe('halted');
    expect(risk.state.record.reason).toBe('by hand');
    // a bot started on the same journal comes up halted
    const again = bot(file);
    expect(again.risk.state.state).toBe('halted');
    expect(again.risk.state.record.reason).toBe('by hand');
  });

  it("the engine's own changes are not mistaken for outside ones", () => {
    const file = join(dir, `j${++n}.sqlite`);
    const { risk, journal } = bot(file);
    const w = watch(watchTradingState(journal, risk));
    risk.reduce('drawdown');
    expect(w.check()).toBeUndefined();
    expect(risk.state.state).toBe('reducing');
    journal.setTradingState({ state: 'reducing', reason: 'drawdown', since: 5 });
    expect(w.check()).toBeUndefined();
  });

  it('status, halt and resume fail with a clear message on a missing journal', async () => {
    const missing = join(dir, 'nope', 'journal.sqlite');
    const prev = process.exitCode;
    const r = await cli(['halt', '--file', missing]);
    expect(r.err).toContain(`--file: journal "${missing}" does not exist`);
    expect(process.exitCode).toBe(1);
    process.exitCode = prev;
    expect((await cli(['status', '--file', missing])).err).toContain('does not exist');
    process.exitCode = prev;
  });
});
