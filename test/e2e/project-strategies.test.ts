/**
 * Issue 34 item 8: `mizan strategies` run inside a project lists the project's own strategies
 * (its strategies/ folder, and the files its config/*.yaml name by path) after the bundled ones,
 * each with its parameters; a file that fails to import is named with the reason (exit 1). Run in
 * mizan's own checkout it lists the bundled ones only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir('mizan-project-strategies-');
afterAll(() => tmp.remove());

const strategy = (name: string, param: string) => `import { defineStrategy } from 'mizan';

export default defineStrategy({
  name: '${name}',
  description: 'The ${name} strategy of this project.',
  params: { ${param}: { type: 'int', default: 7, min: 2, max: 90, description: 'candles looked back' } },
  create() {
    return {};
  },
});
`;

function project(dir: string, extra: Record<string, string> = {}): void {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'my-bot', private: true, type: 'module' }) + '\n',
    'strategies/my-strategy.ts': strategy('my-strategy', 'lookback'),
    // A helper module next to the strategies: not a strategy, not listed.
    'strategies/helpers.ts': 'export const twice = (x: number) => 2 * x;\n',
    'elsewhere/breakout.ts': strategy('breakout', 'channel'),
    'config/paper.yaml': `mode: paper
strategies:
  - name: mine
    strategy: ../strategies/my-strategy.ts
    markets: [BTCUSDT]
    resolution: 10s
  - name: out
    strategy: ../elsewhere/breakout.ts
    markets: [BTCUSDT]
    resolution: 10s
  - name: sma
    strategy: sma-cross
    markets: [BTCUSDT]
    resolution: 10s
`,
    ...extra,
  };
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
}

describe('mizan strategies inside a project (issue 34 item 8)', { timeout: 120_000 }, () => {
  it("lists the project's own strategies, from its strategies/ folder and its configs, with their parameters", async () => {
    const dir = join(tmp.dir, 'ok');
    project(dir);
    const r = await mizan(['strategies'], { cwd: dir });
    expect(r.code, r.all).toBe(0);
    // The bundled ones first, as before.
    expect(r.stdout).toMatch(/^grid\n/m);
    expect(r.stdout).toMatch(/^sma-cross\n/m);
    const own = r.stdout.split(`this project's strategies (${dir}):\n`)[1];
    expect(own, r.stdout).toBeDefined();
    expect(own).toContain('my-strategy  (strategies/my-strategy.ts)\n  The my-strategy strategy of this project.\n');
    expect(own).toMatch(/ {4}lookback\b.*7.*\[2\.\.90\]/);
    expect(own).toContain('breakout  (elsewhere/breakout.ts, named in config/paper.yaml)\n');
    expect(own).toMatch(/ {4}channel\b/);
    expect(own).not.toContain('helpers');
    expect(own).not.toMatch(/^sma-cross/m);
  });

  it('names a project strategy that fails to import, with the reason, and exits 1', async () => {
    const dir = join(tmp.dir, 'broken');
    project(dir, { 'strategies/broken.ts': "import { nothing } from './missing.js';\nexport default nothing;\n" });
    const r = await mizan(['strategies'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^strategies\/broken\.ts: not loaded: .*missing/m);
    expect(r.stdout).toContain('my-strategy  (strategies/my-strategy.ts)');
  });

  it("in mizan's own checkout: the bundled strategies only", async () => {
    const r = await mizan(['strategies'], { cwd: REPO });
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).not.toContain("this project's strategies");
    expect(r.stdout).toMatch(/^market-maker\n/m);
  });
});
