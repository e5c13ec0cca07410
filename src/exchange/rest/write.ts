/**
 * Writes are never retried blind. When a write gets no usable answer (timeout, lost connection,
 * 5xx, 429, or a success status with an unreadable body), the caller gets an
 * OrderOutcomeUnknownError that says so and carries the client id to look up.
 */
import { MizanError, ResponseParseError, RetryableError } from '../../core/errors.js';
import { OrderOutcomeUnknownError, type WriteOperation } from './errors.js';

export async function guardWrite<T>(operation: WriteOperation, clientId: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof OrderOutcomeUnknownError) throw err;
    if (err instanceof RetryableError || err instanceof ResponseParseError) {
      throw new OrderOutcomeUnknownError(operation, clientId, err as MizanError);
    }
    throw err;
  }
}
