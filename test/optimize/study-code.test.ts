/**
 * A study is tied to its strategy's code: `mizan optimize` (child processes, a user's strategy file
 * in a temp folder) refuses to resume a study, or a walk-forward window's study, after the file was
 * edited, naming the instance, its file and both hashes; the same file again resumes. A study stored
 * before the code was recorded (no strategy_code column) resumes unchecked once and is checked from
 * then on.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir, type TempDir } from '../e2e/cli.js';

const strategy = (fraction: number) => `import { defineStrategy, fraction, market, qty, Sma } from 'mizan';

export default defineStrategy({
  name: 'slow-cross',
  description: 'Buys on a fast/slow SMA golden cross, sells the position on the death cross.',
  params: {
    fast: { type: 'int', default: 10, min: 2, max: 200 },
    slow: { type: 'int', default: 30, min: 3, max: 500 },
  },
  warmup: (p) => p.slow,
  create(ctx) {
    const fast = new Sma(ctx.params.fast);
    const slow = new Sma(ctx.params.slow);
    let prev = Number.NaN;
    return {
      onCandle(symbol, bar) {
        const diff = fast.update(bar.c) - slow.update(bar.c);
        const was = prev;
        prev = diff;
        if (Number.isNaN(diff) || Number.isNaN(was)) return;
        const held = ctx.position(symbol)?.quantity;
        if (was <= 0 && diff > 0 && (!held || held.isZero())) return market('BUY', symbol, fraction(${fraction}));
        if (was >= 0 && diff < 0 && held?.gt(0)) return market('SELL', symbol, qty(held));
      },
    };
  },
});
`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);
const HALF = strategy(0.5);
const TENTH = strategy(0.1);

let tmp: TempDir;
let storage: string;
let config: string;
const args = (study: string, trials: number, extra: string[] = []) => [
  'optimize',
  config,
  '--param',
  'fast=5..20',
  '--param',
  'slow=30..60',
  '--trials',
  String(trials),
  '--sampler',
  'random',
  '--seed',
  '1',
  '--objective',
  'return',
  '--workers',
  '1',
  '--study',
  study,
  '--storage',
  storage,
  ...extra,
];
const edit = (text: string) => writeFileSync(join(tmp.dir, 'slow.ts'), text);

function trials(study: string): number[] {
  const db = new Database(storage, { readonly: true, fileMustExist: true });
  try {
    return (
      db.prepare('SELECT t.number FROM trials t JOIN studies s ON s.id = t.study_id WHERE s.name = ? ORDER BY t.number').all(study) as { number: number }[]
    ).map((r) => r.number);
  } finally {
    db.close();
  }
}

beforeAll(() => {
  tmp = tempDir('mizan-study-code-');
  storage = join(tmp.dir, 'studies.sqlite');
  const data = join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz');
  config = tmp.file(
    'fast.yaml',
    `mode: backtest
strategies:
  - { name: slow, strategy: ./slow.ts, markets: [BTCUSDT], resolution: "300s", params: { fast: 10, slow: 30 } }
backtest:
  data: [{ symbol: BTCUSDT, file: ${data} }]
  from: 2023-01-03
  to: 2023-01-21
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
logging: { level: warn, pretty: false }
`,
  );
});
afterAll(() => tmp.remove());

describe('mizan optimize: a study and its strategy code', { timeout: 300_000 }, () => {
  it('refuses to resume after the strategy file changed, naming the instance and both hashes; the same file resumes', async () => {
    edit(HALF);
    const first = await mizan(args('edit', 2), { timeoutMs: 120_000 });
    expect(first.code, first.all).toBe(0);
    expect(trials('edit')).toEqual([0, 1]);

    edit(TENTH);
    const edited = await mizan(args('edit', 4), { timeoutMs: 120_000 });
    expect(edited.code, edited.all).toBe(1);
    expect(edited.stderr).toContain(
      `mizan: study edit exists with a different code for strategy slow (./slow.ts) (stored: sha256 ${sha(HALF)}; given: sha256 ${sha(TENTH)})`,
    );
    expect(trials('edit')).toEqual([0, 1]);

    edit(HALF);
    const back = await mizan(args('edit', 4), { timeoutMs: 120_000 });
    expect(back.code, back.all).toBe(0);
    expect(trials('edit')).toEqual([0, 1, 2, 3]);
  });

  it('a study stored without the code (an older mizan) resumes once unchecked, and is checked from then on', async () => {
    edit(HALF);
    const first = await mizan(args('old', 2), { timeoutMs: 120_000 });
    expect(first.code, first.all).toBe(0);
    // The file as an older mizan left it: no strategy_code column.
    const db = new Database(storage);
    db.exec('ALTER TABLE studies DROP COLUMN strategy_code');
    db.close();

    edit(TENTH);
    const resumed = await mizan(args('old', 3), { timeoutMs: 120_000 });
    expect(resumed.code, resumed.all).toBe(0);
    expect(trials('old')).toEqual([0, 1, 2]);
    // Recorded now: the code this resume ran.
    const row = new Database(storage, { readonly: true });
    const code = row.prepare("SELECT strategy_code FROM studies WHERE name = 'old'").pluck().get() as string;
    row.close();
    expect(JSON.parse(code)).toEqual([{ name: 'slow', strategy: './slow.ts', hash: createHash('sha256').update(TENTH).digest('hex') }]);

    edit(HALF);
    const again = await mizan(args('old', 4), { timeoutMs: 120_000 });
    expect(again.code, again.all).toBe(1);
    expect(again.stderr).toContain(
      `study old exists with a different code for strategy slow (./slow.ts) (stored: sha256 ${sha(TENTH)}; given: sha256 ${sha(HALF)})`,
    );
    expect(trials('old')).toEqual([0, 1, 2]);
  });

  it('each walk-forward window study is checked: wf1 before the data loads, a later one when it opens', async () => {
    edit(HALF);
    const wf = ['--walk-forward', 'train=6d,test=6d'];
    const first = await mizan(args('wf', 2, wf), { timeoutMs: 120_000 });
    expect(first.code, first.all).toBe(0);
    expect(trials('wf/wf1')).toEqual([0, 1]);
    expect(trials('wf/wf2')).toEqual([0, 1]);

    edit(TENTH);
    const edited = await mizan(args('wf', 3, wf), { timeoutMs: 120_000 });
    expect(edited.code, edited.all).toBe(1);
    expect(edited.stderr).toContain(
      `mizan: study wf/wf1 exists with a different code for strategy slow (./slow.ts) (stored: sha256 ${sha(HALF)}; given: sha256 ${sha(TENTH)})`,
    );
    expect(trials('wf/wf1')).toEqual([0, 1]);
    expect(trials('wf/wf2')).toEqual([0, 1]);

    // wf2 alone stored with other code (as if the file changed between the windows of a run): wf1
    // resumes, wf2 is refused when its turn comes.
    edit(HALF);
    const db = new Database(storage);
    db.prepare("UPDATE studies SET strategy_code = ? WHERE name = 'wf/wf2'").run(
      JSON.stringify([{ name: 'slow', strategy: './slow.ts', hash: 'f'.repeat(64) }]),
    );
    db.close();
    const later = await mizan(args('wf', 3, wf), { timeoutMs: 120_000 });
    expect(later.code, later.all).toBe(1);
    expect(later.stderr).toContain(
      `mizan: study wf/wf2 exists with a different code for strategy slow (./slow.ts) (stored: sha256 ffffffffffff; given: sha256 ${sha(HALF)})`,
    );
    expect(trials('wf/wf1')).toEqual([0, 1, 2]);
    expect(trials('wf/wf2')).toEqual([0, 1]);
  });
});
