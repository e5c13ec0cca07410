/** guardWrite (issue 16.4): only a clean success or a clean 4xx refusal is taken at its word. */
import { describe, expect, it } from 'vitest';
import { ExchangeRejectedError, ParameterError, ValidationError } from '../../../src/core/errors.js';
import { OrderOutcomeUnknownError } from '../../../src/exchange/rest/errors.js';
import { guardWrite } from '../../../src/exchange/rest/write.js';

const fail = (err: Error) => () => Promise.reject(err);

describe('guardWrite', () => {
  it('HTTP 201 with success: false is an unknown outcome carrying the exchange message and the client id', async () => {
    const answer = new ExchangeRejectedError('POST /v1/account/orders -> HTTP 201: the exchange answered success: false', { status: 201 });
    const err = await guardWrite('createOrder', 'c1', fail(answer)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrderOutcomeUnknownError);
    expect((err as OrderOutcomeUnknownError).clientId).toBe('c1');
    expect((err as Error).cause).toBe(answer);
  });

  it('a clean 4xx refusal and an error raised before sending stay final', async () => {
    const refused = new ValidationError('HTTP 422', {}, { status: 422 });
    await expect(guardWrite('createOrder', 'c1', fail(refused))).rejects.toBe(refused);
    const local = new ParameterError('price', -1, 'a positive number');
    await expect(guardWrite('createOrder', 'c1', fail(local))).rejects.toBe(local);
  });
});
