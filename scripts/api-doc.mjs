// `npm run docs`: the public API reference (docs/API.md), generated from the build's declaration
// files (dist/src/**/*.d.ts, made by `npm run build`) with the TypeScript compiler API: for each
// subpath in package.json `exports`, every exported name, its declaration as the .d.ts states it,
// and its doc comment. `node scripts/api-doc.mjs --check` exits 1 when docs/API.md is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entries = Object.entries(pkg.exports)
  .filter(([, v]) => typeof v === 'object' && v.types)
  .map(([sub, v]) => ({ name: sub === '.' ? 'mizan' : `mizan/${sub.slice(2)}`, file: join(root, v.types) }));

const program = ts.createProgram(
  entries.map((e) => e.file),
  { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, types: [] },
);
const checker = program.getTypeChecker();
const printer = ts.createPrinter({ removeComments: true });

/** The declaration's text from its .d.ts, without the body of long interfaces or classes' private members. */
function declText(decl) {
  const sf = decl.getSourceFile();
  let node = decl;
  if (ts.isVariableDeclaration(decl)) node = decl.parent.parent; // the whole `export declare const x: T;`
  let text = printer.printNode(ts.EmitHint.Unspecified, node, sf);
  text = text.replace(/^export (declare )?/, '').replace(/^declare /, '');
  text = text.replace(/\n\s*private [^\n]*;/g, '');
  return text.trim();
}

function kindOf(decl) {
  if (ts.isFunctionDeclaration(decl)) return 'function';
  if (ts.isClassDeclaration(decl)) return 'class';
  if (ts.isInterfaceDeclaration(decl)) return 'interface';
  if (ts.isTypeAliasDeclaration(decl)) return 'type';
  if (ts.isVariableDeclaration(decl)) return 'const';
  if (ts.isEnumDeclaration(decl)) return 'enum';
  if (ts.isModuleDeclaration(decl)) return 'namespace';
  return ts.SyntaxKind[decl.kind];
}

const out = [
  '# mizan API reference',
  '',
  'Generated from the declaration files of the build by `npm run docs` (scripts/api-doc.mjs); do not edit.',
  'Each section is one import path of the package (`exports` in package.json); nothing else can be imported.',
  '',
];
for (const e of entries) {
  const sf = program.getSourceFile(e.file);
  if (!sf) throw new Error(`${e.file} is missing: run npm run build first`);
  const mod = checker.getSymbolAtLocation(sf);
  const exports = checker.getExportsOfModule(mod).sort((a, b) => a.name.localeCompare(b.name));
  out.push(`## \`${e.name}\``, '', `${exports.length} exports.`, '');
  for (const sym of exports) {
    const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
    const decls = target.getDeclarations() ?? [];
    if (decls.length === 0) continue;
    const doc = ts.displayPartsToString(target.getDocumentationComment(checker)).trim();
    out.push(`### ${sym.name}`, '');
    out.push(`*${[...new Set(decls.map(kindOf))].join(', ')}*${doc ? ': ' + doc.replace(/\s*\n\s*/g, ' ') : ''}`, '');
    out.push('```ts', ...decls.map(declText), '```', '');
  }
}
const text = out.join('\n').replace(/\n{3,}/g, '\n\n');
const file = join(root, 'docs/API.md');
if (process.argv.includes('--check')) {
  let old = '';
  try {
    old = readFileSync(file, 'utf8');
  } catch {
    // no docs/API.md yet: compared as empty, so the check fails below
  }
  if (old !== text) {
    process.stderr.write('docs/API.md is out of date: run `npm run docs`\n');
    process.exit(1);
  }
} else {
  writeFileSync(file, text);
  process.stdout.write(`wrote docs/API.md (${entries.length} import paths)\n`);
}
