/** `mizan init [dir]` and `mizan new-strategy <name>` (src/init/scaffold.ts). */
import type { Command } from 'commander';
import { initProject, newStrategy, strategyTemplates } from '../init/scaffold.js';

export function registerInitCommands(program: Command): void {
  program
    .command('init')
    .description('create a project for your own strategies: package.json, tsconfig, configs, a strategy, its test')
    .argument('[dir]', 'folder to create it in', '.')
    .option('--mizan <spec>', 'the mizan dependency written to package.json (a version range, a path or a tarball)')
    .action((dir: string, o: { mizan?: string }) => {
      const r = initProject(dir, o.mizan ? { dependency: o.mizan } : {});
      process.stdout.write(`created ${r.dir}:\n${r.written.map((f) => `  ${f}`).join('\n')}\nnext: cd ${dir} && npm install && npm test && npx mizan backtest config/backtest.yaml\n`);
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
