/** Errors of the market-data layer, split by whether a retry helps (see src/core/errors.ts). */
import { FinalError, RetryableError } from '../core/errors.js';

/** A symbol the market catalog does not list. Final: asking again gives the same answer. */
export class UnknownMarketError extends FinalError {
  constructor(
    readonly symbol: string,
    known: number,
  ) {
    super(`unknown market symbol: ${JSON.stringify(symbol)} (not among the ${known} markets of /v1/markets)`);
  }
}

/** The catalog has not loaded yet (first refresh pending or failed). Retryable. */
export class CatalogNotLoadedError extends RetryableError {
  constructor(readonly symbol: string) {
    super(`market catalog not loaded yet: cannot look up symbol ${JSON.stringify(symbol)}`);
  }
}

/** A symbol asked of the engine that it does not track. Final. */
export class UntrackedSymbolError extends FinalError {
  constructor(readonly symbol: string) {
    super(`symbol not tracked by the market-data engine: ${JSON.stringify(symbol)} (call start/track first)`);
  }
}
