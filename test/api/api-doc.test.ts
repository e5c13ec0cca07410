/**
 * docs/API.md is the public API reference generated from the build's .d.ts files
 * (scripts/api-doc.mjs): it must match what the current declarations generate, and no public type
 * may be `any`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../backtest/helpers.js';

describe('API reference', () => {
  it('docs/API.md equals what the declarations generate (run `npm run docs` after an API change)', () => {
    const run = () =>
      execFileSync(process.execPath, [join(REPO, 'scripts/api-doc.mjs'), '--check'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(run).not.toThrow();
    const doc = readFileSync(join(REPO, 'docs/API.md'), 'utf8');
    for (const section of ['mizan', 'mizan/testing', 'mizan/backtest', 'mizan/exchange', 'mizan/sim']) expect(doc).toContain(`## \`${section}\``);
    const code = doc
      .split('```ts')
      .slice(1)
      .map((b) => b.split('```')[0]!)
      .join('\n');
    expect(code).not.toMatch(/\bany\b/);
  }, 120_000);
});
