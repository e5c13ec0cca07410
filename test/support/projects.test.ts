/**
 * The vitest projects (vitest.config.ts, test/support/projects.ts): every test file belongs to
 * exactly one, `npm test` runs them all, and the markers put a file that spawns or listens out of
 * the unit project.
 */
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectOf, testProjects } from './projects.js';

const REPO = resolve(import.meta.dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'mizan-projects-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function allTestFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...allTestFiles(p));
    else if (e.name.endsWith('.test.ts')) out.push(relative(REPO, p));
  }
  return out.sort();
}

describe('vitest projects', () => {
  it('puts every test file in exactly one project', () => {
    const p = testProjects(REPO);
    const listed = [...p.unit, ...p.integration, ...p.e2e].sort();
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual(allTestFiles(join(REPO, 'test')));
    expect(p.unit.length).toBeGreaterThan(50);
    expect(p.e2e).toContain('test/e2e/stop-order.test.ts');
    expect(p.unit).toContain('test/runtime/lifecycle.test.ts');
  });

  it('keeps a file that spawns, or imports a helper that listens, out of the unit project', () => {
    const root = join(tmp, 'test');
    mkdirSync(join(root, 'support'), { recursive: true });
    mkdirSync(join(root, 'x'), { recursive: true });
    writeFileSync(join(root, 'support', 'server.ts'), "import { createServer } from 'node:http';\nexport const s = () => createServer().listen(0);\n");
    writeFileSync(join(root, 'support', 'pure.ts'), 'export const add = (a: number, b: number) => a + b;\n');
    const file = (name: string, body: string) => {
      const f = join(root, 'x', name);
      writeFileSync(f, body);
      return f;
    };
    expect(projectOf(file('a.test.ts', "import { add } from '../support/pure.js';\nadd(1, 2);\n"), root)).toBe('unit');
    expect(projectOf(file('b.test.ts', "import { s } from '../support/server.js';\ns();\n"), root)).toBe('integration');
    expect(projectOf(file('c.test.ts', "import { execFile } from 'node:child_process';\nexecFile('node', ['bin/mizan.js']);\n"), root)).toBe('e2e');
  });
});
