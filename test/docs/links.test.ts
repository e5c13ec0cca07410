/**
 * Issue 37 item 6: the documentation holds together. Every relative link of README.md,
 * CONTRIBUTING.md and docs/*.md reaches a file of the repository and, when it names a heading
 * (`page.md#anchor`), a heading of that page; every page of docs/ is linked from the README.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../backtest/helpers.js';
import { anchors, docPages, relativeLinks } from './doc-pages.js';

/**
 * Pages that other branches of issue 37's work add at the same time as this split: the README and
 * the pages already link them. Once a branch has landed its page is checked like any other (this
 * list only excuses a page that does not exist).
 */
const ADDED_ELSEWHERE = new Set<string>();

const read = (page: string) => readFileSync(join(REPO, page), 'utf8');

describe('the documentation', () => {
  it('every relative link reaches a file, and every #anchor a heading of its page', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const page of docPages(REPO)) {
      for (const link of relativeLinks(page, read(page))) {
        const [path, anchor] = link.target.split('#') as [string, string | undefined];
        const target = path === '' ? page : normalize(join(dirname(page), decodeURI(path)));
        checked++;
        if (!existsSync(join(REPO, target))) {
          if (!ADDED_ELSEWHERE.has(target)) problems.push(`${link.page}:${link.line}: ${link.target}: no file ${target}`);
          continue;
        }
        if (anchor && target.endsWith('.md') && !anchors(read(target)).has(anchor)) {
          problems.push(`${link.page}:${link.line}: ${link.target}: ${target} has no heading #${anchor}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it('the README links every page of docs/ and CONTRIBUTING.md, and stays under 250 lines', () => {
    const readme = read('README.md');
    const targets = new Set(relativeLinks('README.md', readme).map((l) => l.target.split('#')[0]));
    const unlinked = docPages(REPO).filter((p) => p !== 'README.md' && !targets.has(p));
    expect(unlinked).toEqual([]);
    for (const p of ADDED_ELSEWHERE) expect(targets.has(p), p).toBe(true);
    expect(readme.split('\n').length).toBeLessThan(250);
  });
});
