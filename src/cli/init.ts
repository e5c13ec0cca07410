/** `mizan init [dir]` and `mizan new-strategy <name>` (src/init/scaffold.ts). */
import type { Command } from 'commander';
import { initProject, newStrategy, strategyTemplates } from '../init/scaffold.js';

export function registerInitCommands(program: Command): void {
  program
    .command('init')
    .description('create a project for your own strategies: package.json, tsconfig, configs, a strategy, its test')
    .argument('[dir]', 'folder to create it in', '.')
    .option(
      '--mizan <spec>',
      'the mizan dependency written to package.json (a version range, a path, a tarball or a git URL; default: how the running mizan was installed)',
    )
    .action((dir: string, o: { mizan?: string }) => {
      const r = initProject(dir, o.mizan !== undefined ? { dependency: o.mizan } : {});
      const lines = [`created ${r.dir}:`, ...r.written.map((f) => `  ${f}`)];
      if (r.merged) {
        lines.push(`  package.json (existing): added ${r.merged.added.length ? r.merged.added.join(', ') : 'nothing'}`);
        if (r.merged.kept.length) lines.push(`  package.json (existing): kept your ${r.merged.kept.join(', ')}`);
      }
      lines.push(`mizan dependency: "mizan": "${r.dependency}"`);
      const cd = dir === '.' ? '' : `cd ${dir} && `;
      lines.push(`next: ${cd}npm install && npm test && npx mizan backtest config/backtest.yaml`);
      process.stdout.write(lines.join('\n') + '\n');
    });
  program
    .command('new-strategy')
    .description('add strategies/<name>.ts from a bundled example strategy')
    .argument('<name>', 'strategy name (lower-case letters, digits, dashes)')
    .option('--template <template>', `the example to start from: ${strategyTemplates().join(', ')}`, 'sma-cross')
    .option('--dir <dir>', 'project folder', '.')
    .action((name: string, o: { template: string; dir: string }) => {
      const file = newStrategy(o.dir, name, o.template);
      process.stdout.write(`created ${file}\n`);
    });
}
