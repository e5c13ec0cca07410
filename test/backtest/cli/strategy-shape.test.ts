/**
 * A strategy file with a mistake the types would have caught (esbuild compiles without a type
 * check), run by `mizan backtest` in a child process: the config error names the strategy, the field,
 * what it got and the line of the user's file, not mizan's own source, and nothing runs.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { oneDayConfig, runCli, tempDir, writeFile } from './run-cli.js';

describe('a strategy definition missing params or create, in mizan backtest', { timeout: 120_000 }, () => {
  it('names the field and the line of the strategy file (exit 1, nothing written)', async () => {
    const dir = tempDir();
    writeFile(
      dir,
      'no-params.ts',
      `import { defineStrategy } from 'mizan';\n\nexport default defineStrategy({\n  name: 'no-params',\n  description: 'forgot params',\n  create: () => ({}),\n});\n`,
    );
    writeFile(
      dir,
      'no-create.ts',
      `import { defineStrategy } from 'mizan';\n\nexport default defineStrategy({\n  name: 'no-create',\n  description: 'handlers at the top',\n  params: {},\n  onCandle() {},\n});\n`,
    );
    const a = await runCli(['backtest', writeFile(dir, 'a.yaml', oneDayConfig('no-params.ts')), '--out', join(dir, 'a')], { cwd: dir, timeoutMs: 110_000 });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(
      `strategies[0].strategy: strategy "no-params": params must be an object of parameter specs ({} when it has none), got nothing (at ${join(dir, 'no-params.ts')}:3:`,
    );
    const b = await runCli(['backtest', writeFile(dir, 'b.yaml', oneDayConfig('no-create.ts')), '--out', join(dir, 'b')], { cwd: dir, timeoutMs: 110_000 });
    expect(b.code).toBe(1);
    expect(b.stderr).toContain(
      `strategy "no-create": create(ctx) must be a function returning the handlers, got nothing (onCandle: handlers belong in the object create returns) (at ${join(dir, 'no-create.ts')}:3:`,
    );
    expect(`${a.stderr}${b.stderr}`).not.toContain('does not default-export');
  });
});
