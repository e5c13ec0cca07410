import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { ConfigError } from '../../src/config/issues.js';
import { listBundledStrategies, loadStrategyInstances } from '../../src/runtime/strategy-loader.js';

const yaml = (strategies: string) => `mode: paper\nstrategies:\n${strategies}`;

describe('loadStrategyInstances', () => {
  it('lists the bundled strategies', () => {
    expect(listBundledStrategies()).toEqual(['grid', 'margin-trend', 'market-maker', 'otc-dca', 'rsi-reversion', 'sma-cross']);
  });
  it('loads bundled strategies with defaults filled', async () => {
    const cfg = parseConfig(yaml('  - { name: a, strategy: sma-cross, markets: [BTCUSDT], resolution: "1", params: { fast: 5 } }\n'));
    const [inst] = await loadStrategyInstances(cfg);
    expect(inst!.params).toEqual({ fast: 5, slow: 30, fraction: 0.5 });
    expect(inst!.resolutionSec).toBe(60);
    expect(inst!.account).toBe('main');
  });
  it('reports every bad parameter and unknown strategy at once, with paths', async () => {
    const cfg = parseConfig(
      yaml(
        '  - { name: a, strategy: sma-cross, markets: [BTCUSDT], resolution: "1", params: { fast: 1, speed: 3 } }\n' +
          '  - { name: b, strategy: no-such-thing, markets: [BTCUSDT], resolution: "1" }\n',
      ),
    );
    const err = await loadStrategyInstances(cfg).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const paths = (err as ConfigError).issues.map((i) => i.path).sort();
    expect(paths).toEqual(['strategies[0].params.fast', 'strategies[0].params.speed', 'strategies[1].strategy']);
    expect((err as ConfigError).message).toContain('below the minimum 2');
    expect((err as ConfigError).message).toContain('no-such-thing');
  });
});
