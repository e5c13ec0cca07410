/**
 * Writes are never retried blind. When a write gets no usable answer (timeout, lost connection,
 * 5xx, 429, or a success status with an unreadable body), the caller gets an
 * OrderOutcomeUnknownError that says so and carries the client id to look up.
 *
 * Only two answers are taken at their word: a clean success, and a clean refusal (HTTP 4xx: the
 * request was read and refused). Anything else the exchange answered (HTTP 201 with
 * `success: false`, a 2xx whose body carries an error code, a 3xx) is contradictory: the order may
 * exist, so it is unknown too, with the exchange's answer as its `reason`. Errors raised before
 * anything was sent (a ParameterError has no HTTP status) stay final.
 */
import { MizanError, ResponseParseError, RetryableError } from '../../core/errors.js';
import { OrderOutcomeUnknownError, type WriteOperation } from './errors.js';

/** A refusal the exchange made clearly: an HTTP 4xx status (429 is a RateLimitError, retryable). */
function cleanRefusal(err: MizanError): boolean {
  const http = err.context.status;
  return http === undefined || (http >= 400 && http < 500);
}

export async function guardWrite<T>(operation: WriteOperation, clientId: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof OrderOutcomeUnknownError) throw err;
    if (err instanceof RetryableError || err instanceof ResponseParseError || (err instanceof MizanError && !cleanRefusal(err))) {
      throw new OrderOutcomeUnknownError(operation, clientId, err as MizanError);
    }
    throw err;
  }
}
