import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { checkConfig, registerCheckCommands } from '../../src/cli/check.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-check-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('mizan check / mizan strategies', () => {
  it('accepts the default config and lists its strategies and markets', async () => {
    let out = '';
    const ok = await checkConfig('config/default.yaml', { write: (t) => void (out += t) });
    expect(ok).toBe(true);
    expect(out).toContain('btc-sma');
    expect(out).toMatch(/markets: BTCUSDT, ETHUSDT, BTCTMN, USDTTMN/);
  });
  it('reports strategy parameter problems with their paths and fails', async () => {
    let out = '';
    const f = file(
      'bad.yaml',
      'mode: paper\nstrategies:\n  - { name: x, strategy: sma-cross, markets: [BTCUSDT], resolution: "1", params: { fast: 1, slow: 999 } }\n',
    );
    expect(await checkConfig(f, { write: (t) => void (out += t) })).toBe(false);
    expect(out).toContain('strategies[0].params.fast: 1 is below the minimum 2');
    expect(out).toContain('strategies[0].params.slow: 999 is above the maximum 500');
  });
  it('lists every bundled strategy with its parameters', async () => {
    let out = '';
    const program = new Command().exitOverride();
    registerCheckCommands(program, { write: (t) => void (out += t) });
    await program.parseAsync(['strategies'], { from: 'user' });
    for (const s of ['sma-cross', 'rsi-reversion', 'grid', 'market-maker', 'margin-trend', 'otc-dca']) expect(out).toContain(s);
    expect(out).toContain('fast: int = 10 [2..200]');
  });
});
