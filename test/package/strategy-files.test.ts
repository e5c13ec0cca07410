/**
 * A user's strategy files, as `mizan check` loads them from the build (node bin/mizan.js, dist/):
 * .ts and .js, in a package with and without "type": "module", named in the config relative to the
 * config file's folder (mizan runs from another folder). The project reaches mizan as an installed
 * package does: node_modules/mizan (here a link to this repository, resolved through its exports).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../backtest/helpers.js';

const ESM_JS = `import { defineStrategy, market, qty } from 'mizan';
export default defineStrategy({ name: 'js-one', params: { size: { type: 'number', default: 1, min: 0 } }, create: () => ({ onCandle: (s) => market('BUY', s, qty('0.001')) }) });
`;
const TS = `import { defineStrategy, type StrategyContext } from 'mizan';
const label = (ctx: StrategyContext): string => ctx.name;
export default defineStrategy({ name: 'ts-one', params: {}, create: (ctx) => { label(ctx); return {}; } });
`;

function project(typeModule: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), `mizan-user-${typeModule ? 'esm' : 'plain'}-`));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user', private: true, ...(typeModule ? { type: 'module' } : {}) }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO, join(dir, 'node_modules/mizan'), 'dir');
  mkdirSync(join(dir, 'strategies'));
  writeFileSync(join(dir, 'strategies/one.js'), ESM_JS);
  writeFileSync(join(dir, 'strategies/two.ts'), TS);
  mkdirSync(join(dir, 'config'));
  writeFileSync(
    join(dir, 'config/paper.yaml'),
    `mode: paper
strategies:
  - { name: first, strategy: ../strategies/one.js, markets: [BTCUSDT], resolution: "1" }
  - { name: second, strategy: ../strategies/two.ts, markets: [BTCUSDT], resolution: "1" }
journal: { file: ":memory:" }
`,
  );
  return dir;
}

describe('user strategy files', () => {
  for (const typeModule of [false, true]) {
    it(`.js and .ts strategies load in a package ${typeModule ? 'with' : 'without'} "type": "module", paths from the config's folder`, () => {
      const dir = project(typeModule);
      // Run from the project root: ../strategies/… is relative to config/, not to the working directory.
      let out: string;
      try {
        out = execFileSync(process.execPath, [join(REPO, 'bin/mizan.js'), 'check', 'config/paper.yaml'], {
          cwd: dir,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      expect(out).toContain('config/paper.yaml: ok');
      expect(out).toMatch(/first\s+js-one/);
      expect(out).toMatch(/second\s+ts-one/);
    }, 60_000);
  }
});
