/**
 * Issue 32 item 4: a user's strategy file is compiled in process with esbuild (no loader hooks) when
 * `mizan backtest` loads it. Proved on the user's path (child processes of bin/mizan.js, from a folder
 * outside the checkout): a TypeScript strategy with a type-only import, a relative import of a helper
 * file and an import of 'mizan' runs, and gets the kernel's own module instances (a balance's Decimal
 * is an instance of the Decimal it imports from 'mizan', and its handlers are called from the bundled
 * command, dist/bundle/); a changed helper is compiled again (the
 * compiled copy is not trusted once its sources change); a syntax error and an error thrown while the
 * file is evaluated are reported with the file, line and column.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir('mizan-compile-');
afterAll(() => tmp.remove());

const STRATEGY = `import { Decimal, defineStrategy } from 'mizan';
import type { StrategyContext } from 'mizan';
import type { Mark } from './lib/types.js';
import { mark } from './lib/mark.js';

function note(ctx: StrategyContext): Mark {
  return { sameDecimal: ctx.balance('USDT').free instanceof Decimal, text: mark() };
}

let seen = false;
export default defineStrategy({
  name: 'compiled',
  description: 'test: notes its helper and whether its Decimal is the kernel\\'s',
  params: {},
  create(ctx) {
    return {
      onCandle() {
        if (seen) return;
        seen = true;
        const m = note(ctx);
        // Who called this handler: the bundled mizan backtest (dist/bundle/), not dist/src/.
        const fromBundle = /\\/dist\\/bundle\\//.test(new Error().stack ?? '');
        process.stderr.write('NOTE ' + JSON.stringify({ ...m, fromBundle }) + '\\n');
      },
    };
  },
});
`;
const TYPES = `export interface Mark {\n  sameDecimal: boolean;\n  text: string;\n}\n`;
const helper = (text: string) => `export function mark(): string {\n  return ${JSON.stringify(text)};\n}\n`;

function config(strategy: string): string {
  const data = join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz');
  return `mode: backtest
strategies:
  - { name: mine, strategy: ${strategy}, markets: [BTCUSDT], resolution: "300s" }
backtest:
  data: [{ symbol: BTCUSDT, file: ${data} }]
  from: 2023-01-03
  to: 2023-01-05
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
logging: { level: warn }
`;
}

const note = (stderr: string) => JSON.parse(/NOTE (.*)/.exec(stderr)?.[1] ?? 'null') as { sameDecimal: boolean; text: string; fromBundle: boolean } | null;

describe('mizan backtest compiles a strategy file with esbuild', { timeout: 180_000 }, () => {
  it("runs a TypeScript strategy with type-only, relative and mizan imports, with the kernel's Decimal", async () => {
    mkdirSync(join(tmp.dir, 'lib'));
    tmp.file('mine.ts', STRATEGY);
    tmp.file('lib/types.ts', TYPES);
    tmp.file('lib/mark.ts', helper('first'));
    tmp.file('bt.yaml', config('./mine.ts'));
    const env = { MIZAN_CACHE_DIR: join(tmp.dir, 'cache') };
    const a = await mizan(['backtest', 'bt.yaml'], { cwd: tmp.dir, env });
    expect(a.code, a.all).toBe(0);
    expect(note(a.stderr)).toEqual({ sameDecimal: true, text: 'first', fromBundle: true });

    // The same sources again: the compiled copy; then the helper changes: compiled again.
    const b = await mizan(['backtest', 'bt.yaml'], { cwd: tmp.dir, env });
    expect(note(b.stderr)).toEqual({ sameDecimal: true, text: 'first', fromBundle: true });
    writeFileSync(join(tmp.dir, 'lib/mark.ts'), helper('second'));
    const c = await mizan(['backtest', 'bt.yaml'], { cwd: tmp.dir, env });
    expect(c.code, c.all).toBe(0);
    expect(note(c.stderr)).toEqual({ sameDecimal: true, text: 'second', fromBundle: true });
    expect(readFileSync(join(tmp.dir, 'lib/mark.ts'), 'utf8')).toContain('second');
  });

  it('reports a syntax error in a helper with its file:line:column', async () => {
    tmp.file('broken.ts', STRATEGY.replace('./lib/mark.js', './lib/broken.js'));
    tmp.file('lib/broken.ts', 'export function mark(): string {\n  return "x" +;\n}\n');
    tmp.file('broken.yaml', config('./broken.ts'));
    const r = await mizan(['backtest', 'broken.yaml'], { cwd: tmp.dir });
    expect(r.code).not.toBe(0);
    expect(r.all).toContain(`${join(tmp.dir, 'lib/broken.ts')}:2:15: Unexpected ";"`);
    expect(r.all).toContain('strategies[0].strategy');
  });

  it('reports an error thrown while the strategy file is evaluated with its file:line:column', async () => {
    tmp.file(
      'throws.ts',
      `import { defineStrategy } from 'mizan';\nconst limit: number = 3;\nif (limit > 2) throw new RangeError('limit too high: ' + limit);\nexport default defineStrategy({ name: 'x', description: 'x', params: {}, create: () => ({}) });\n`,
    );
    tmp.file('throws.yaml', config('./throws.ts'));
    const r = await mizan(['backtest', 'throws.yaml'], { cwd: tmp.dir });
    expect(r.code).not.toBe(0);
    expect(r.all).toContain(`limit too high: 3 (at ${join(tmp.dir, 'throws.ts')}:3:22)`);
  });
});
