import { loadConfig } from '../src/config/load.js';
import { runBookBacktest } from '../src/backtest/book/run.js';
const config = await loadConfig('config/book-backtest.yaml');
for (let i = 0; i < 4; i++) { const t = performance.now(); const r = await runBookBacktest(config, {}); console.log(r.events, (performance.now() - t).toFixed(0), 'ms'); }
