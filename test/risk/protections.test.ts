import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { ProtectionsConfig } from '../../src/risk/protections/index.js';
import { journalRiskSink } from '../../src/risk/sinks.js';
import { Journal } from '../../src/store/journal.js';
import { World, limit } from './fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const x of dirs.splice(0)) rmSync(x, { recursive: true, force: true });
});

const config: ProtectionsConfig = {
  dailyLossLimitPct: 5,
  maxDrawdownPct: 10,
  onBreach: 'reducing',
  actions: { maxDrawdown: 'halted' },
};

function world() {
  const w = new World();
  w.setBalance('USDT', '1000000');
  w.setBalance('BTC', '1');
  return w;
}

describe('protections: a losing sequence moves the bot to REDUCING then HALTED, and a restart keeps it', () => {
  it('with the SQLite journal as the sink', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mizan-risk-'));
    dirs.push(dir);
    const file = path.join(dir, 'journal.sqlite');
    const w = world();
    let journal = Journal.open(file, { clock: w.clock });
    let e = w.engine({ sink: journalRiskSink(journal, journal), protections: config });
    const step = (eq: string) => {
      w.clock.advance(60_000);
      return e.onEquity(w.clock.now(), d(eq));
    };
    expect(step('10000')).toEqual([]);
    expect(step('9600')).toEqual([]);
    expect(step('9500.01')).toEqual([]);
    expect(e.state.state).toBe('active');
    const r = step('9500'); // exactly 5 % down on the day
    expect(r[0]).toContain('daily loss limit');
    expect(e.state.state).toBe('reducing');
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(false);
    expect(e.check(limit('SELL', '0.001', '60000')).ok).toBe(true);
    step('9000.01');
    expect(e.state.state).toBe('reducing');
    step('9000'); // exactly 10 % below the peak 10000
    expect(e.state.state).toBe('halted');
    expect(e.state.record.reason).toContain('max drawdown');
    expect(e.check(limit('SELL', '0.001', '60000')).ok).toBe(false);

    // Restart: a new journal connection and a new engine.
    journal.close();
    journal = Journal.open(file, { clock: w.clock });
    e = w.engine({ sink: journalRiskSink(journal, journal), protections: config });
    expect(e.state.state).toBe('halted');
    expect(e.check(limit('BUY', '0.001', '60000'))).toMatchObject({ ok: false, rule: 'tradingState' });
    // Recovery of equity does not lift it; protections never loosen the state.
    step('12000');
    expect(e.state.state).toBe('halted');
    // Only an explicit resume does.
    e.resume('operator checked the losses');
    expect(e.state.state).toBe('active');
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
    journal.close();
    journal = Journal.open(file, { clock: w.clock });
    expect(w.engine({ sink: journalRiskSink(journal, journal) }).state.state).toBe('active');
    expect(journal.tradingState()).toMatchObject({ state: 'active', reason: 'operator checked the losses' });
    // Every verdict was journaled with its intent: 2 before the restart, 1 denied and 1 passed after.
    const rows = journal.intents();
    expect(rows.map((r) => r.verdict?.ok)).toEqual([false, true, false, false, true]);
    expect(rows[2]?.verdict?.rule).toBe('tradingState');
    journal.close();
  });

  it('the equity peak survives a restart (a drawdown across it is still seen)', () => {
    const w = world();
    const e1 = w.engine({ protections: { maxDrawdownPct: 10 } });
    e1.onEquity(w.clock.now(), d('20000'));
    const e2 = w.engine({ protections: { maxDrawdownPct: 10 } });
    e2.onEquity(w.clock.now(), d('18000'));
    expect(e2.state.state).toBe('reducing');
  });

  it('the daily loss counts from the first equity of the UTC day', () => {
    const w = world();
    const e = w.engine({ protections: { dailyLossLimitPct: 5 } });
    w.clock.set(Date.UTC(2025, 0, 6, 23, 59, 0));
    e.onEquity(w.clock.now(), d('10000'));
    e.onEquity(w.clock.now(), d('9600'));
    w.clock.set(Date.UTC(2025, 0, 7, 0, 0, 1)); // a sample after midnight: the new UTC day starts at 9500
    e.onEquity(w.clock.now(), d('9500'));
    expect(e.state.state).toBe('active');
    e.onEquity(w.clock.now(), d('9025.01'));
    expect(e.state.state).toBe('active');
    e.onEquity(w.clock.now(), d('9025'));
    expect(e.state.state).toBe('reducing');
  });
});

describe('protections: the daily loss at the day boundary', () => {
  // A candle that closes at 00:00 UTC is the last of the day that ends there (a backtest samples the
  // equity at that close; at resolution 1D it is the day's only sample): its loss counts against that
  // day's start, as a live bot sampling every minute would have judged it before midnight.
  it('a sample at exactly 00:00 UTC is judged against the day that ends there', () => {
    const w = world();
    const e = w.engine({ protections: { dailyLossLimitPct: 5 } });
    expect(e.onEquity(Date.UTC(2025, 0, 6, 0), d('10000'))).toEqual([]);
    const r = e.onEquity(Date.UTC(2025, 0, 7, 0), d('9500'));
    expect(r).toHaveLength(1);
    expect(r[0]).toContain("5% below the day's start 10000 (2025-01-06 UTC)");
    expect(e.state.state).toBe('reducing');
  });

  it('the sample at 00:00 UTC then opens the next day with its equity', () => {
    const w = world();
    const e = w.engine({ protections: { dailyLossLimitPct: 5 } });
    e.onEquity(Date.UTC(2025, 0, 6, 0), d('10000'));
    expect(e.onEquity(Date.UTC(2025, 0, 7, 0), d('9600'))).toEqual([]); // 4 % on 2025-01-06
    expect(e.onEquity(Date.UTC(2025, 0, 7, 12), d('9120.01'))).toEqual([]); // 2025-01-07 started at 9600, not 10000
    const r = e.onEquity(Date.UTC(2025, 0, 7, 12), d('9120'));
    expect(r[0]).toContain("5% below the day's start 9600 (2025-01-07 UTC)");
  });

  it('a day without any sample before its midnight is not judged (the first sample opens the day)', () => {
    const w = world();
    const e = w.engine({ protections: { dailyLossLimitPct: 5 } });
    e.onEquity(Date.UTC(2025, 0, 5, 12), d('10000'));
    // 2025-01-06 had no sample: nothing to judge the midnight against; it opens 2025-01-07.
    expect(e.onEquity(Date.UTC(2025, 0, 7, 0), d('9000'))).toEqual([]);
    expect(e.state.state).toBe('active');
  });
});

describe('protections: cooldown and stoploss guard', () => {
  it('N losing trades in a row pause that strategy for M minutes; exits still pass; a win resets the streak', () => {
    const w = world();
    const e = w.engine({ protections: { cooldown: { losingTrades: 3, minutes: 30 } } });
    const trade = (pnl: string, strategy = 's1') => e.onTradeClosed({ strategy, symbol: 'BTCUSDT', pnl: d(pnl), ts: w.clock.now() });
    trade('-1');
    trade('-1');
    trade('0'); // break-even resets
    trade('-1');
    trade('-1');
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
    expect(trade('-1')[0]).toContain('3 losing trades in a row');
    const v = e.check(limit('BUY', '0.001', '60000'));
    expect(v).toMatchObject({ ok: false, rule: 'tradingState' });
    expect(!v.ok && v.reason).toContain('strategy s1 is paused');
    expect(e.check(limit('SELL', '0.001', '60000')).ok).toBe(true);
    expect(e.check(limit('BUY', '0.001', '60000', 's2')).ok).toBe(true);
    expect(e.state.state).toBe('active');
    // The pause survives a restart and ends by itself.
    const again = w.engine({ protections: { cooldown: { losingTrades: 3, minutes: 30 } } });
    w.clock.advance(30 * 60_000 - 1);
    expect(again.check(limit('BUY', '0.001', '60000')).ok).toBe(false);
    w.clock.advance(1);
    expect(again.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
  });

  it('N stop-loss exits within the window is a breach; spread out over more than the window is not', () => {
    const w = world();
    const e = w.engine({ protections: { stoplossGuard: { trades: 2, windowMinutes: 60 }, onBreach: 'halted' } });
    const stop = () => e.onTradeClosed({ strategy: 's1', symbol: 'BTCUSDT', pnl: d('-5'), reason: 'stop_loss', ts: w.clock.now() });
    stop();
    w.clock.advance(60 * 60_000);
    expect(stop()).toEqual([]);
    e.onTradeClosed({ strategy: 's1', symbol: 'BTCUSDT', pnl: d('-5'), reason: 'take_profit', ts: w.clock.now() });
    w.clock.advance(60 * 60_000 - 1);
    expect(stop()[0]).toContain('2 stop-loss exits within 60 minutes');
    expect(e.state.state).toBe('halted');
  });
});
