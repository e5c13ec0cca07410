/**
 * The README's `mizan backtest` with a strategy that throws, in a child process: what a strategy logs and throws reaches the terminal (the
 * real pino logger on stderr, logging.level honoured), handler errors are counted by kind in the
 * summary and result.json and fail the exit code unless allowed; denied intents are broken down by
 * rule and reason (issue 16 items 10 and 11).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mizan, REPO, type Result } from './cli.js';

const FIX = resolve(REPO, 'test/e2e/fixtures');
const T0 = Date.parse('2024-01-01T00:00:00Z') / 1000;
const ROWS = 40;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mizan-e2e-bt-'));
}

function writeFile(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function readResult(out: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Record<string, unknown>;
}

/** `mizan <args>` to its end (a child process). */
function runCli(args: string[], o: { cwd?: string; timeoutMs?: number } = {}): Promise<Result> {
  return mizan(args, o);
}

interface Opts {
  strategies: string;
  extra?: string;
  logging?: string;
}

function setup(o: Opts): { dir: string; config: string; out: string } {
  const dir = tempDir();
  const rows = Array.from({ length: ROWS }, (_, i) => `${T0 + i * 60},${100 + (i % 7)},${102 + (i % 7)},${99 + (i % 7)},${101 + (i % 7)},5`);
  writeFile(dir, 'candles.csv', ['time,open,high,low,close,volume', ...rows].join('\n') + '\n');
  const config = writeFile(
    dir,
    'bt.yaml',
    `mode: backtest
strategies:
${o.strategies}
backtest:
  data: [ { symbol: BTCUSDT, file: candles.csv } ]
  from: ${T0}
  to: ${T0 + ROWS * 60}
  balances: { USDT: 10000 }
${o.extra ?? ''}journal: { file: ":memory:" }
${o.logging ?? ''}`,
  );
  return { dir, config, out: join(dir, 'out') };
}

const thrower = (params = '{}') =>
  `  - { name: t, strategy: ${JSON.stringify(join(FIX, 'thrower.ts'))}, markets: [BTCUSDT], resolution: "60s", params: ${params} }`;
const denied = `  - { name: d, strategy: ${JSON.stringify(join(FIX, 'denied.ts'))}, markets: [BTCUSDT], resolution: "60s" }`;

/** The JSON log lines of stderr (the logger writes JSON when stderr is not a terminal). */
function logLines(stderr: string): { level: number; msg: string; strategy?: string; err?: { stack: string } }[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string });
}

describe('mizan backtest: strategy errors and logs', () => {
  it('a strategy that throws: first error of each kind logged with its stack, all counted, exit code 1', async () => {
    const s = setup({ strategies: thrower('{ startThrows: true }') });
    const r = await runCli(['backtest', s.config, '--out', s.out], { cwd: s.dir });
    expect(r.code).toBe(1);
    const errs = logLines(r.stderr).filter((l) => l.level === 50);
    // One line per kind (onStart's TypeError, onCandle's Error), each with the strategy file in its stack.
    expect(errs.map((l) => l.msg)).toEqual([
      'strategy handler onStart failed: TypeError: cannot start',
      'strategy handler onCandle failed: Error: boom on a candle',
    ]);
    for (const l of errs) {
      expect(l.strategy).toBe('t');
      expect(l.err?.stack).toContain('fixtures/thrower.ts:');
    }
    // Candles 3..39 throw: 37, plus onStart.
    expect(r.stdout).toContain('strategy handler errors: 38');
    expect(r.stdout).toMatch(/37 × t\.onCandle: Error: boom on a candle \(first at 2024-01-01T00:04:00\.000Z\)/);
    expect(r.stderr).toContain('exit code 1 (--allow-errors or backtest.allowErrors accepts them)');
    expect(readFileSync(join(s.out, 'report.html'), 'utf8')).toContain(
      '<b>Strategy handler errors: 38</b><br>1 × t.onStart: TypeError: cannot start (first at 2024-01-01T00:00:00.000Z)<br>37 × t.onCandle',
    );
    const res = readResult(s.out) as unknown as { errors: { total: number; kinds: unknown[] } };
    expect(res.errors).toEqual({
      total: 38,
      kinds: [
        { strategy: 't', handler: 'onStart', error: 'TypeError: cannot start', count: 1, firstAt: '2024-01-01T00:00:00.000Z' },
        { strategy: 't', handler: 'onCandle', error: 'Error: boom on a candle', count: 37, firstAt: '2024-01-01T00:04:00.000Z' },
      ],
    });
  }, 60_000);

  it('a handler error carrying the API key: the key is in neither the summary nor result.json nor report.html', async () => {
    const KEY = 'e2e-leak-key-5f3a9c1d7b';
    const s = setup({ strategies: `  - { name: l, strategy: ${JSON.stringify(join(FIX, 'leaky.ts'))}, markets: [BTCUSDT], resolution: "60s" }` });
    const r = await mizan(['backtest', s.config, '--out', s.out, '--allow-errors'], { cwd: s.dir, env: { WALLEX_API_KEY: KEY } });
    expect(r.code, r.stderr).toBe(0);
    const files = [readFileSync(join(s.out, 'result.json'), 'utf8'), readFileSync(join(s.out, 'report.html'), 'utf8')];
    for (const text of [r.stdout, ...files]) {
      expect(text).toContain('cannot trade with key [REDACTED]');
      expect(text).not.toContain(KEY);
    }
    expect((JSON.parse(files[0]!) as { errors: { total: number } }).errors.total).toBe(ROWS);
  }, 60_000);

  it('--allow-errors and backtest.allowErrors: exit code 0, the errors still reported', async () => {
    const a = setup({ strategies: thrower() });
    const r1 = await runCli(['backtest', a.config, '--allow-errors'], { cwd: a.dir });
    expect(r1.code).toBe(0);
    expect(r1.stdout).toContain('strategy handler errors: 37');
    expect(r1.stderr).toContain('allowed (--allow-errors / backtest.allowErrors)');
    const b = setup({ strategies: thrower(), extra: '  allowErrors: true\n' });
    const r2 = await runCli(['backtest', b.config], { cwd: b.dir });
    expect(r2.code).toBe(0);
    expect(r2.stdout).toContain('strategy handler errors: 37');
  }, 60_000);

  it('ctx.log reaches stderr at the configured logging.level; stdout keeps the summary', async () => {
    const info = setup({ strategies: thrower('{ from: 1000 }') });
    const r1 = await runCli(['backtest', info.config], { cwd: info.dir });
    expect(r1.code).toBe(0);
    const l1 = logLines(r1.stderr);
    expect(l1.find((l) => l.msg === 'thrower says hello')).toMatchObject({ level: 30, strategy: 't' });
    // Stamped with the simulated time: candle 1 closes at T0 + 2 minutes.
    expect(l1.find((l) => l.msg === 'thrower saw candle 1')).toMatchObject({ level: 40, at: '2024-01-01T00:02:00.000Z' });
    expect(l1.some((l) => l.msg === 'thrower debug line')).toBe(false);
    expect(r1.stdout).not.toContain('thrower says hello');
    expect(r1.stdout).toContain('equity 10000.00 -> 10000.00 USDT');

    const warn = setup({ strategies: thrower('{ from: 1000 }'), logging: 'logging: { level: warn }\n' });
    const l2 = logLines((await runCli(['backtest', warn.config], { cwd: warn.dir })).stderr);
    expect(l2.map((l) => l.msg)).toEqual(['thrower saw candle 1']);

    const debug = setup({ strategies: thrower('{ from: 1000 }'), logging: 'logging: { level: debug }\n' });
    const l3 = logLines((await runCli(['backtest', debug.config], { cwd: debug.dir })).stderr);
    expect(l3.some((l) => l.msg === 'thrower debug line')).toBe(true);
  }, 90_000);
});

describe('mizan sweep: handler errors', () => {
  it('marks each run whose strategy threw, in the ranked table and the CSV', async () => {
    const s = setup({ strategies: thrower() });
    const csv = join(s.dir, 'sweep.csv');
    const r = await runCli(['sweep', s.config, '--param', 'from=3,1000', '--workers', '1', '--out', csv], { cwd: s.dir, timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('{"t":{"from":3}}  error: 37 strategy handler error(s), first: t.onCandle: Error: boom on a candle ×37');
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows.filter((l) => l.includes('strategy handler error'))).toHaveLength(1);
    expect(rows.find((l) => l.startsWith('1000,'))).not.toContain('error');
  }, 90_000);
});

describe('mizan backtest: denied intents by rule and reason', () => {
  it('breaks the denials down in the summary and result.json', async () => {
    const s = setup({ strategies: denied });
    const r = await runCli(['backtest', s.config, '--out', s.out], { cwd: s.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('denied intents 40');
    expect(r.stdout).toContain('denied intents by rule and reason:\n  marketLimits: 40\n');
    // The numbers that differ between the denials as their range, never a bare `#` (issue 34 item 4).
    expect(r.stdout).toMatch(/ {8}27 × quantity 9345\.850467–9901\.267326 is above the maximum 100 of BTCUSDT\n/);
    expect(r.stdout).toMatch(/ {8}13 × order total 0\.000909–0\.000963 USDT \(0\.000009 × 101–107\) is below the minimum 10 of BTCUSDT\n/);
    expect(r.stdout).not.toContain(' # ');
    const res = readResult(s.out) as unknown as {
      denied: { total: number; byRule: { rule: string; count: number; reasons: { reason: string; count: number; example: string }[]; otherReasons: number }[] };
    };
    expect(res.denied.total).toBe(40);
    expect(res.denied.byRule).toHaveLength(1);
    const rule = res.denied.byRule[0]!;
    expect(rule).toMatchObject({ rule: 'marketLimits', count: 40, otherReasons: 0 });
    expect(rule.reasons.map((x) => [x.reason, x.count])).toEqual([
      ['quantity 9345.850467–9901.267326 is above the maximum 100 of BTCUSDT', 27],
      ['order total 0.000909–0.000963 USDT (0.000009 × 101–107) is below the minimum 10 of BTCUSDT', 13],
    ]);
    expect(rule.reasons[0]!.example).toMatch(/^quantity \d+\.\d+ is above the maximum 100 of BTCUSDT$/);
    const html = readFileSync(join(s.out, 'report.html'), 'utf8');
    expect(html).toContain(
      '<b>Denied intents: 40</b><br>marketLimits: 40<br>&nbsp;&nbsp;27 × quantity 9345.850467–9901.267326 is above the maximum 100 of BTCUSDT',
    );
  }, 60_000);
});
