import { AuthError } from '../../base/errors';

/**
 * Runs a state-store call for a request: a failure of the store becomes a 503 AuthError
 * ("the state store is unavailable"), while AuthErrors (429, 400) keep their status.
 */
export async function stateCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AuthError) throw err;
    throw new AuthError('unavailable', 'the state store is unavailable', { cause: err });
  }
}
