/**
 * `mizan/sim`: the simulated Wallex exchange, for testing your own tools against it. In process
 * (`SimulatedExchange`, `createDefaultSimulator`), over HTTP and socket.io like the real exchange
 * (`createWireServer`, or `runSim` for what `mizan sim` starts), with fault injection.
 */
export { SimulatedExchange, type SimulatedExchangeOptions, type NewAccount } from '../sim/exchange.js';
export type { DepthEvent, PriceEvent, MarketSnapshot, SimEvents } from '../sim/events.js';
export type { BookSide, LevelInput, PlaceOrderRequest, SimFill, SimOrder, SimOrderStatus, SimTrade, StopCondition } from '../sim/order-types.js';
export { defaultMarketSpecs, type MarketSpec } from '../sim/markets.js';
export type { ApiKeyRecord, NewApiKey, SimAccount, FeeOverride } from '../sim/accounts.js';
export { SimError } from '../sim/errors.js';
export { FaultInjector, type FaultConfig, type FaultState, type FailStatus } from '../sim/faults.js';
export { createDefaultSimulator, createTestAccount, DEFAULT_PRICES, TEST_BALANCES, type DefaultSimulatorOptions, type TestAccount } from '../sim/default.js';
export { createWireServer, type WireServer, type WireServerOptions } from '../sim/wire/server.js';
export { StreamKeys } from '../sim/wire/private-stream.js';
export type { Route, WireRequest, WireResponse, Permission } from '../sim/wire/route.js';
export { runSim, type RunSimOptions, type RunningSim } from '../sim/run-sim.js';
export { createSimDesks } from '../sim/desks.js';
export { startReplay, candleSource, hftSource, defaultReplaySources } from '../sim/replay/index.js';
export type { ReplayTarget, ReplaySource, ReplayHandle } from '../sim/replay/index.js';
export { ManualClock, SystemClock, type Clock } from '../core/clock.js';
