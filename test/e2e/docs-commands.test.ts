/**
 * Issue 37 item 6: the docs' commands are run. Every fenced ```sh block of README.md,
 * CONTRIBUTING.md and docs/*.md is read; its `mizan …` lines (also `npx mizan …` and
 * `npm run mizan -- …`; continuation lines joined, comments and optional `[…]` parts left out) run
 * as a user runs them, `node bin/mizan.js …` in a child process, one block after the other in a
 * fresh folder holding copies of the repository's config/ and backtest/data/, and each must exit 0.
 * A block that must not run here (live keys, Redis on other hosts, a command that runs until Ctrl-C,
 * a block another test runs) is preceded by `<!-- not run: reason -->`, and the reason is required.
 * The blocks run at the same time, each in its own folder: the longest ones are a 30 s paper run and
 * a 10 s recording, mostly waiting.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { docPages, mizanCommands, shBlocks, type ShBlock } from '../docs/doc-pages.js';
import { mizan, REPO, tempDir, type TempDir } from './cli.js';

const blocks: ShBlock[] = docPages(REPO).flatMap((page) => shBlocks(page, readFileSync(join(REPO, page), 'utf8')));
const runnable = blocks.filter((b) => b.notRun === undefined && mizanCommands(b).length > 0);

const dirs: TempDir[] = [];
afterAll(() => {
  for (const d of dirs) d.remove();
});

/** A folder as a checkout has it for these commands: config/ and the bundled data, nothing written back. */
function workspace(): string {
  const d = tempDir('mizan-docs-commands-');
  dirs.push(d);
  cpSync(join(REPO, 'config'), join(d.dir, 'config'), { recursive: true });
  cpSync(join(REPO, 'backtest/data'), join(d.dir, 'backtest/data'), { recursive: true });
  return d.dir;
}

describe("the docs' commands", () => {
  it('finds the blocks: every one kept from running says why, and the runnable ones cover the main commands', () => {
    for (const b of blocks) if (b.notRun !== undefined) expect(b.notRun, `${b.page}:${b.line}`).toMatch(/\w{3,}/);
    const run = runnable.flatMap((b) => mizanCommands(b).map((c) => `${b.page} ${c[0]}`));
    expect(run).toEqual(
      expect.arrayContaining([
        'README.md check',
        'README.md backtest',
        'README.md run',
        'docs/backtesting.md backtest',
        'docs/backtesting.md sweep',
        'docs/backtesting.md analyze',
      ]),
    );
  });

  for (const b of runnable) {
    const cmds = mizanCommands(b);
    it.concurrent(
      `${b.page}:${b.line}: ${cmds.map((c) => `mizan ${c.slice(0, 2).join(' ')}`).join('; ')}`,
      async ({ expect }) => {
        const cwd = workspace();
        for (const args of cmds) {
          const r = await mizan(args, { cwd, timeoutMs: 300_000 });
          expect(r.code, `${b.page}:${b.line}: mizan ${args.join(' ')}\n${r.all}`).toBe(0);
        }
      },
      600_000,
    );
  }
});
