/**
 * `mizan init [dir]` and `mizan new-strategy <name>`: a user's own project that depends on mizan.
 * The strategy templates are the bundled example strategies (their TypeScript sources, shipped in
 * the package), with their import of mizan's sources rewritten to the package name `mizan`.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';
import { mergePackageJson } from './merge-package.js';
import { installedMizanSpec } from './mizan-spec.js';

/** The bundled examples' TypeScript sources (shipped in the package as strategies/*.ts). */
const TEMPLATES_DIR = join(PACKAGE_ROOT, 'strategies');
const DATA_FILE = 'BTCUSDT-5m-freqtrade-2023.csv.gz';

export function strategyTemplates(): string[] {
  if (!existsSync(TEMPLATES_DIR)) return [];
  return readdirSync(TEMPLATES_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => basename(f, '.ts'))
    .sort();
}

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

/** The template's source as a strategy named `name` that imports from 'mizan'. */
function strategySource(template: string, name: string): string {
  const known = strategyTemplates();
  if (!known.includes(template)) throw new Error(`--template ${JSON.stringify(template)}: no such template; templates: ${known.join(', ')}`);
  let text = readFileSync(join(TEMPLATES_DIR, `${template}.ts`), 'utf8');
  const imports = /from '\.\.\/src\/index\.js'/g;
  if (!imports.test(text)) throw new Error(`template ${template}: its import of mizan was not found`);
  text = text.replace(imports, "from 'mizan'");
  const named = new RegExp(`name: '${template}'`);
  if (!named.test(text)) throw new Error(`template ${template}: its name: '${template}' was not found`);
  return text.replace(named, `name: '${name}'`);
}

function checkName(name: string): void {
  if (!NAME.test(name))
    throw new Error(`strategy name ${JSON.stringify(name)}: use lower-case letters, digits and dashes, starting with a letter (e.g. my-strategy)`);
}

/** Writes strategies/<name>.ts in `dir` from a template; refuses to overwrite. Returns the file. */
export function newStrategy(dir: string, name: string, template = 'sma-cross'): string {
  checkName(name);
  const file = join(resolve(dir), 'strategies', `${name}.ts`);
  if (existsSync(file)) throw new Error(`${file} already exists`);
  const text = strategySource(template, name);
  mkdirSync(join(resolve(dir), 'strategies'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

function mizanPackage(): { version: string; allowScripts?: Record<string, boolean> } {
  return JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string; allowScripts?: Record<string, boolean> };
}

function mizanVersion(): string {
  return mizanPackage().version;
}

/**
 * The dependency install scripts the project in `root` allows. npm 11 lists, after every install,
 * each dependency install script its `allowScripts` policy does not cover (its documentation says
 * they are blocked by default), and only the project's own package.json sets that policy. So the
 * project carries mizan's own list (better-sqlite3's native build, which the journal needs;
 * esbuild's binary check, for tsx; msgpackr-extract, for the job queue) and, when mizan itself does
 * not come from the registry, mizan's `prepare` under the key npm matches it by (a registry mizan
 * runs no script): a tarball or folder by its absolute `file:` path (what `npm install-scripts
 * approve` writes; a relative one does not match), git by its repository without a `#committish`
 * (a key's committish must prefix the commit's hash, so a branch or tag would never match), any
 * other spec (a tarball URL) as it is.
 */
function allowScripts(dependency: string, root: string): Record<string, boolean> {
  const own = { ...(mizanPackage().allowScripts ?? {}) };
  if (/^[\^~<>=]*\d|^(latest|next)$|^\*$/.test(dependency)) return own;
  let key = dependency;
  if (/^(file:|\.{1,2}\/|\/|~\/)/.test(dependency)) {
    const path = dependency.replace(/^file:/, '');
    key = `file:${path.startsWith('~/') ? join(homedir(), path.slice(2)) : resolve(root, path)}`;
  } else if (/^(git\+|git:|github:|gitlab:|bitbucket:|gist:)|^[\w.-]+\/[\w.-]+(#|$)/.test(dependency)) key = dependency.replace(/#.*$/, '');
  return { ...own, [key]: true };
}

const SCHEMA = '# yaml-language-server: $schema=../node_modules/mizan/config/schema.json';

function files(name: string, dependency: string, root: string): Record<string, string> {
  return {
    'package.json':
      JSON.stringify(
        {
          name,
          version: '0.1.0',
          private: true,
          type: 'module',
          scripts: {
            test: 'vitest run',
            backtest: 'mizan backtest config/backtest.yaml',
            paper: 'mizan run config/paper.yaml',
            check: 'mizan check config/paper.yaml',
          },
          dependencies: { mizan: dependency },
          devDependencies: { typescript: '5.9.3', vitest: '4.1.12', '@types/node': '20.19.43' },
          allowScripts: allowScripts(dependency, root),
        },
        null,
        2,
      ) + '\n',
    'tsconfig.json':
      JSON.stringify(
        {
          compilerOptions: {
            target: 'ES2022',
            module: 'nodenext',
            moduleResolution: 'nodenext',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            allowImportingTsExtensions: true,
            types: ['node'],
          },
          include: ['strategies', 'test'],
        },
        null,
        2,
      ) + '\n',
    'config/backtest.yaml': `${SCHEMA}
# Backtest my-strategy on real BTC/USDT 5-minute candles (data/, from mizan's bundled data):
#   npx mizan backtest config/backtest.yaml --out reports/my-strategy
# Strategy files are found from this file's folder; data files from the folder you run mizan in.
mode: backtest
strategies:
  - name: mine
    strategy: ../strategies/my-strategy.ts
    markets: [BTCUSDT]
    resolution: "300s"
    params: { fast: 10, slow: 30, fraction: 0.5 }
backtest:
  data:
    - { symbol: BTCUSDT, file: data/${DATA_FILE} }
  from: 2023-01-03
  to: 2023-02-09
  balances: { USDT: 10000 }
  slippagePct: 0.05
journal: { file: ":memory:" }
logging: { level: warn }
`,
    'config/paper.yaml': `${SCHEMA}
# Paper trading against mizan's built-in exchange simulator, which replays real market data.
# Nothing here contacts the real exchange.
#   npx mizan check config/paper.yaml     (validate, connects to nothing)
#   npx mizan run config/paper.yaml       (Ctrl-C stops)
mode: paper
exchange:
  simulator: true
simulator:
  seed: 1
  speed: 1
  data: node_modules/mizan/backtest/data
strategies:
  - name: mine
    strategy: ../strategies/my-strategy.ts
    markets: [BTCUSDT]
    resolution: 10s
    params: { fast: 3, slow: 8, fraction: 0.2 }
paper:
  balances: { USDT: 10000 }
journal:
  file: .mizan/paper.sqlite
logging:
  level: info
`,
    'strategies/my-strategy.ts': strategySource('sma-cross', 'my-strategy'),
    'test/my-strategy.test.ts': `import { describe, expect, it } from 'vitest';
import { candle, drafts, harness } from 'mizan/testing';
import myStrategy from '../strategies/my-strategy.ts';

describe('my-strategy', () => {
  it('buys on the golden cross, then sells the position on the death cross', async () => {
    const h = harness(myStrategy, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3, fraction: 0.5 } });
    const closes = [10, 10, 10, 9, 12];
    let out = drafts(undefined);
    for (const [i, c] of closes.entries()) out = drafts(await h.handlers.onCandle?.('BTCUSDT', candle(i * 60, c)));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ kind: 'order', side: 'BUY', type: 'MARKET', tag: 'golden-cross' });

    h.setPosition('BTCUSDT', '0.5', '12');
    out = drafts(await h.handlers.onCandle?.('BTCUSDT', candle(300, 5)));
    expect(out).toMatchObject([{ kind: 'order', side: 'SELL', tag: 'death-cross' }]);
  });

  it('refuses a fast period that is not below the slow one', () => {
    expect(() => harness(myStrategy, { markets: ['BTCUSDT'], params: { fast: 5, slow: 5 } })).toThrow(/smaller/);
  });
});
`,
    '.gitignore': `node_modules/
.mizan/
reports/
*.sqlite
*.sqlite-wal
*.sqlite-shm
`,
    'README.md': `# ${name}

Trading strategies for the Wallex exchange, built on mizan (\`"mizan": "${dependency}"\` in package.json).

    npm install
    npm test                                   # unit tests of the strategies (mizan/testing)
    npx mizan backtest config/backtest.yaml    # backtest on real candles (data/)
    npx mizan check config/paper.yaml          # validate the paper config (connects to nothing)
    npx mizan run config/paper.yaml            # paper trading on mizan's simulator

- \`strategies/my-strategy.ts\`: a strategy (\`defineStrategy\` from \`mizan\`). Add another with
  \`npx mizan new-strategy <name> [--template ${strategyTemplates().join('|')}]\`.
- \`test/my-strategy.test.ts\`: its unit test, with scripted candles, books and fills.
- \`config/*.yaml\`: what runs where. Strategy paths are relative to the config file's folder.
- \`data/\`: candle files for backtests.
`,
  };
}

export interface InitResult {
  dir: string;
  written: string[];
  /** The mizan dependency spec in the project's package.json. */
  dependency: string;
  /** When package.json existed: the fields added to it, and those kept with the user's value. */
  merged?: { added: string[]; kept: string[] };
}

/**
 * Creates a project in `dir` (made if missing). An existing package.json gets what it lacks (see
 * merge-package.ts); any other file already there is refused. `dependency` is the package.json spec
 * for mizan; by default the spec of the mizan running (see mizan-spec.ts), or the existing
 * package.json's own mizan dependency when it has one.
 */
export function initProject(dir: string, opts: { dependency?: string } = {}): InitResult {
  const root = resolve(dir);
  const pkgFile = join(root, 'package.json');
  let existing: Record<string, unknown> | undefined;
  if (existsSync(pkgFile)) {
    try {
      existing = JSON.parse(readFileSync(pkgFile, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`${pkgFile}: not valid JSON (${(e as Error).message}): not merging into it`);
    }
    if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) throw new Error(`${pkgFile}: not a JSON object: not merging into it`);
  }
  const theirs = (existing?.dependencies as Record<string, unknown> | undefined)?.mizan;
  const dependency = opts.dependency ?? (typeof theirs === 'string' ? theirs : installedMizanSpec(PACKAGE_ROOT, mizanVersion(), root));
  const name =
    basename(root)
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-') || 'mizan-app';
  const all = files(name, dependency, root);
  const clashes = [...Object.keys(all), `data/${DATA_FILE}`].filter((f) => f !== 'package.json' && existsSync(join(root, f)));
  if (clashes.length) throw new Error(`${root} already has ${clashes.join(', ')}: not overwriting (choose an empty or new folder)`);
  const written: string[] = [];
  let merged: InitResult['merged'];
  for (const [rel, text] of Object.entries(all)) {
    const f = join(root, rel);
    mkdirSync(resolve(f, '..'), { recursive: true });
    if (rel === 'package.json' && existing) {
      const m = mergePackageJson(existing, JSON.parse(text) as Record<string, unknown>);
      writeFileSync(f, JSON.stringify(m.merged, null, 2) + '\n');
      merged = { added: m.added, kept: m.kept };
      continue;
    }
    writeFileSync(f, text);
    written.push(rel);
  }
  mkdirSync(join(root, 'data'), { recursive: true });
  for (const f of [DATA_FILE, DATA_FILE.replace('.csv.gz', '.meta.json')]) {
    const src = join(PACKAGE_ROOT, 'backtest/data', f);
    if (!existsSync(src)) continue;
    copyFileSync(src, join(root, 'data', f));
    written.push(relative(root, join(root, 'data', f)));
  }
  return { dir: root, written, dependency, ...(merged ? { merged } : {}) };
}
