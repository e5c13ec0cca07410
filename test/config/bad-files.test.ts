import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import type { ConfigIssue } from '../../src/config/index.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const fx = (name: string) => resolve(fixtures, name);

async function issuesOf(name: string, env: Record<string, string> = {}): Promise<{ err: ConfigError; issues: ConfigIssue[] }> {
  try {
    await loadConfig(fx(name), { env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return { err: err as ConfigError, issues: (err as ConfigError).issues };
  }
  throw new Error(`${name} was accepted`);
}

// file, expected path, a fragment of the message, expected line
const cases: [string, string, RegExp, number | undefined][] = [
  ['bad-wrong-type.yaml', 'exchange.timeoutMs', /"soon" is not a whole number/, 3],
  ['bad-unknown-key.yaml', 'strategies[0].marketz', /unknown key "marketz"; did you mean "markets"\?/, 5],
  ['bad-missing-strategy.yaml', 'strategies', /is required/, undefined],
  ['bad-empty-strategies.yaml', 'strategies', /at least one strategy/, 2],
  ['bad-cron.yaml', 'strategies[1].schedule.cron', /"61 \* \* \* \*" is not a valid cron expression \(5 or 6 fields, e\.g\. "\*\/5 \* \* \* \*"\)/, 7],
  ['bad-timezone.yaml', 'strategies[0].schedule.timezone', /"Asia\/Tehrn" is not a known time zone/, 6],
  ['bad-literal-api-key.yaml', 'exchange.apiKey', /written literally .*allowLiteralApiKey/, 4],
  ['bad-unknown-market.yaml', 'strategies[0].markets[1]', /"DOGEUSDT" is not a known market \(known: BTCUSDT/, 3],
  ['bad-negative-size.yaml', 'strategies[0].capital.USDT', /-100 must be positive/, 6],
  ['bad-zero-limit.yaml', 'risk.limits.maxPositionValue.market.BTCUSDT', /0 must be positive/, 4],
  ['bad-duplicate-name.yaml', 'strategies[1].name', /"a" is already the name of strategies\[0\]/, 4],
  ['bad-live-simulator.yaml', 'exchange.simulator', /not allowed in live mode/, 2],
  ['bad-backtest-range.yaml', 'backtest.to', /"2024-01-01" must be after from \(2024-03-01T00:00:00.000Z\)/, 5],
  ['bad-backtest-missing.yaml', 'backtest', /is required in backtest mode/, undefined],
  ['bad-missing-env.yaml', 'exchange.apiKey', /environment variable WALLEX_API_KEY is not set/, 3],
  ['bad-resolution.yaml', 'strategies[0].resolution', /"7" is not a resolution \(one of .*60s/, 3],
  ['bad-startup-retry.yaml', 'exchange.startupRetryMs', /-5 must be a whole number from 0 to 3600000/, 3],
  ['bad-stream-transport.yaml', 'exchange.stream.transport', /"sse" is not a stream transport \(allowed: auto, ws, socketio\)/, 4],
  ['bad-mode.yaml', 'mode', /"papr" is not a mode \(allowed: "live", "paper", "backtest"\)/, 1],
  ['bad-server-backtest.yaml', 'server', /is for a running bot \(mizan run\); a backtest serves no API/, 6],
  ['bad-server-port.yaml', 'server.port', /70000 must be a port number from 0 to 65535/, 3],
  ['bad-order-rate-reserve.yaml', 'risk.limits.orderRate.reserveForCancels', /25 must be less than limit \(20\): at most 19/, 4],
  ['bad-strategy-order-rate-reserve.yaml', 'strategies[0].risk.orderRate.reserveForCancels', /5 must be less than limit \(5\): at most 4/, 7],
  ['bad-fees-maker.yaml', 'backtest.fees.maker', /2 must be from 0 to 0\.1/, 6],
  // A fractional latency made the simulated clock fractional, and every client id with a dot was refused.
  ['bad-book-latency.yaml', 'backtest.book.entryLatencyMs', /10\.5 must be a whole number of milliseconds/, 8],
  ['bad-syntax.yaml', '', /YAML syntax/, 3], // the unclosed flow sequence is detected at the end of the file
];

describe('bad configuration files', () => {
  it.each(cases)('%s is rejected at %s', async (file, path, fragment, line) => {
    const { err, issues } = await issuesOf(file);
    const hit = issues.find((i) => i.path === path && fragment.test(i.message));
    expect(hit, `issues were:\n${err.message}`).toBeDefined();
    expect(hit?.line).toBe(line);
    // the thrown message lists it with the path in front, and names the file
    expect(err.message).toContain(file);
    expect(err.message).toContain(`${path || '(file)'}: ${hit?.message}`);
    expect(err.retryable).toBe(false);
  });

  it('live mode without the simulator off and without an API key gives both problems', async () => {
    const { issues } = await issuesOf('bad-live-simulator.yaml');
    expect(issues.map((i) => i.path).sort()).toEqual(['exchange.apiKey', 'exchange.simulator']);
    expect(issues.find((i) => i.path === 'exchange.apiKey')?.message).toMatch(/required in live mode/);
  });

  it('never prints a literal API key, and accepts it only with the explicit override', async () => {
    const { err, issues } = await issuesOf('bad-literal-api-key.yaml');
    expect(err.message).not.toContain('Zx9-literal-secret-42');
    expect(JSON.stringify(issues)).not.toContain('Zx9-literal-secret-42');
    const ok = await loadConfig(fx('bad-literal-api-key.yaml'), { env: {}, allowLiteralApiKey: true });
    expect(ok.exchange.apiKey).toBe('Zx9-literal-secret-42');
  });

  it('an unknown market is accepted when the caller passes a list that has it', async () => {
    const cfg = await loadConfig(fx('bad-unknown-market.yaml'), { env: {}, knownMarkets: ['BTCUSDT', 'DOGEUSDT'] });
    expect(cfg.strategies[0]?.markets).toEqual(['BTCUSDT', 'DOGEUSDT']);
  });

  it('a missing file is a ConfigError naming the file', async () => {
    await expect(loadConfig(fx('nope.yaml'), { env: {} })).rejects.toThrow(/nope\.yaml: 1 problem[\s\S]*cannot read the file \(ENOENT\)/);
  });
});
