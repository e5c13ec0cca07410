/**
 * The simulated exchange: engine, wire server, faults, default setup and the `mizan sim` command.
 * (Margin, instant, trading credit, withdrawals and replay have their own modules in this folder.)
 */
export { SimulatedExchange, type SimulatedExchangeOptions, type NewAccount } from './exchange.js';
export type { DepthEvent, PriceEvent, MarketSnapshot, SimEvents } from './events.js';
export type { BookSide, LevelInput, PlaceOrderRequest, SimFill, SimOrder, SimOrderStatus, SimTrade, StopCondition } from './order-types.js';
export { defaultMarketSpecs, type MarketSpec } from './markets.js';
export { AccountStore, MAX_ACTIVE_KEYS, type ApiKeyRecord, type NewApiKey, type SimAccount, type FeeOverride } from './accounts.js';
export { SlidingWindowLimiter, type RateState } from './rate-limiter.js';
export { Prng } from './prng.js';
export { Ledger, type LedgerEntry } from './ledger.js';
export { SimError, simErrors, type SimFieldErrors } from './errors.js';
export { FaultInjector, MALFORMED_PAYLOAD, type FaultConfig, type FaultState, type FailStatus } from './faults.js';
export { createDefaultSimulator, createTestAccount, DEFAULT_PRICES, TEST_BALANCES, type DefaultSimulatorOptions, type TestAccount } from './default.js';
export { createWireServer, type WireServer, type WireServerOptions } from './wire/server.js';
export { StreamKeys } from './wire/private-stream.js';
export { ok, fail, type Route, type WireRequest, type WireResponse, type Permission, type HttpMethod } from './wire/route.js';
export { runSim, registerSimCommand, type RunSimOptions, type RunningSim } from './cli-command.js';
