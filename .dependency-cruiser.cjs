/**
 * Module layering rules (`npm run lint:deps`, run by .ci/run before the tests). Read one way:
 * core <- strategy/risk/execution/portfolio/market <- kernel <- runtime/backtest <- CLI; the venue
 * adapters (src/venues/: exchange, sim) are plugged in by the modes.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'risk-independent-of-execution-and-store',
      comment: 'The risk module reads through its ports (risk/ports.ts); it imports neither the execution engine nor the store.',
      severity: 'error',
      from: { path: '^src/risk/' },
      to: { path: ['^src/execution/engine\\.ts$', '^src/store/'] },
    },
    {
      name: 'kernel-knows-no-mode',
      comment: 'The kernel builds the trading parts for every mode: it imports no mode (runtime, backtest), no adapter and no CLI.',
      severity: 'error',
      from: { path: '^src/kernel/' },
      to: { path: ['^src/runtime/', '^src/backtest/', '^src/exchange/', '^src/sim/', '^src/store/', '^src/venues/', 'cli-command\\.ts$', '^src/cli/'] },
    },
    {
      name: 'lower-layers-not-on-modes',
      comment: 'core, strategy, risk, execution, portfolio and market do not import the kernel, a mode or a venue adapter.',
      severity: 'error',
      from: { path: '^src/(core|strategy|risk|execution|portfolio|market)/' },
      to: { path: ['^src/kernel/', '^src/runtime/', '^src/backtest/', '^src/venues/'] },
    },
    {
      name: 'execution-knows-no-adapter',
      comment:
        'The execution engine talks to venues through its port (execution/venue.ts); the adapters of the exchange and the simulator live in src/venues/.',
      severity: 'error',
      from: { path: '^src/execution/' },
      to: { path: ['^src/exchange/', '^src/sim/'] },
    },
    {
      name: 'runtime-not-on-cli',
      comment: 'The live/paper mode adapter is used by the CLI, never the other way round.',
      severity: 'error',
      from: { path: '^src/runtime/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-types-from-core',
      comment: 'execution, risk, portfolio and market report in the shared event and view types of core/views.ts; they import nothing from strategy/.',
      severity: 'error',
      from: { path: '^src/(execution|risk|portfolio|market)/' },
      to: { path: '^src/strategy/' },
    },
    {
      name: 'core-is-the-bottom',
      comment: 'core/ imports nothing of the project outside core/.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'no-cli-imports',
      comment:
        'No module outside src/cli/ imports a CLI module (the subcommands live in src/cli/; the layer barrels re-export theirs; the simulator started in process is sim/run-sim.ts, the `mizan sim` command sim/cli-command.ts).',
      severity: 'error',
      from: { pathNot: ['^src/cli/', '^src/[^/]+/index\\.ts$'] },
      to: { path: ['^src/cli/', 'cli-command\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '(^|/)node_modules/' },
  },
};
