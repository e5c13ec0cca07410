/**
 * Reading the project's documentation as its tests need it: the pages (README.md, CONTRIBUTING.md,
 * docs/*.md), the fenced `sh` blocks and the `mizan` commands in them, the relative links and the
 * headings they may point at. Used by test/docs/ (links) and test/e2e/docs-commands.test.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every page of the documentation, as paths relative to the repository. */
export function docPages(repo: string): string[] {
  const docs = readdirSync(join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...(existsSync(join(repo, 'CONTRIBUTING.md')) ? ['CONTRIBUTING.md'] : []), ...docs];
}

export interface ShBlock {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's lines, fences excluded. */
  lines: string[];
  /** The reason given by a `<!-- not run: reason -->` comment on the last non-blank line before the block. */
  notRun?: string;
}

const NOT_RUN = /^<!--\s*not run:\s*(.*?)\s*-->$/;

/** The fenced ```sh blocks of a page, with the marker that keeps a block from being run. */
export function shBlocks(page: string, text: string): ShBlock[] {
  const lines = text.split('\n');
  const out: ShBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*```sh\s*$/.test(lines[i]!)) continue;
    const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
    if (end < 0) throw new Error(`${page}:${i + 1}: a \`\`\`sh block that is never closed`);
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === '') k--;
    const marker = k >= 0 ? NOT_RUN.exec(lines[k]!.trim()) : null;
    out.push({ page, line: i + 1, lines: lines.slice(i + 1, end), ...(marker ? { notRun: marker[1]! } : {}) });
    i = end;
  }
  return out;
}

/** The shell words of a command line: spaces split, double or single quotes group; a word starting with `#` ends the line. */
function shellWords(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m[3]?.startsWith('#')) break;
    out.push(m[1] ?? m[2] ?? m[3]!);
  }
  return out;
}

/** Leaves out the optional parts of a synopsis: every `[…]` group, nested ones included. */
function withoutOptional(line: string): string {
  let s = line;
  for (let prev = ''; prev !== s;) {
    prev = s;
    s = s.replace(/\[[^[\]]*\]/g, '');
  }
  return s;
}

/**
 * The `mizan` commands of a block, as the arguments after `mizan`: lines starting with `mizan`,
 * `npx mizan` or `npm run mizan --`; continuation lines joined, comments and optional `[…]` parts
 * left out. Other lines (npm, curl, apt-get) are not mizan's and are not returned.
 */
export function mizanCommands(block: ShBlock): string[][] {
  const joined = block.lines
    .join('\n')
    .replace(/\\\n\s*/g, ' ')
    .split('\n');
  const out: string[][] = [];
  for (const raw of joined) {
    const words = shellWords(withoutOptional(raw.trim()));
    if (words[0] === 'mizan') out.push(words.slice(1));
    else if (words[0] === 'npx' && words[1] === 'mizan') out.push(words.slice(2));
    else if (words[0] === 'npm' && words[1] === 'run' && words[2] === 'mizan' && words[3] === '--') out.push(words.slice(4));
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` removed, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings (outside fenced blocks), a repeated one numbered as GitHub does. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

export interface Link {
  page: string;
  line: number;
  target: string;
}

/** The relative links of a page (`[text](target)` outside fenced blocks; web and mail addresses left out). */
export function relativeLinks(page: string, text: string): Link[] {
  const out: Link[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) return;
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (!/^[a-z]+:/i.test(target)) out.push({ page, line: i + 1, target });
    }
  });
  return out;
}
