/** What a screen that ended the session leaves for the next sign-in: why, and the name to sign in with. */
export interface SignInHint {
  /** The words to say, already filled in. */
  said: string;
  /** The user name or address the sign-in form starts with. */
  user: string;
}

let pending: SignInHint | undefined;
const listeners = new Set<() => void>();

/** Leaves `hint` for `<authgate-sign-in>`: it says it and fills the user in (an e-mail change ended the session). */
export function leaveSignInHint(hint: SignInHint): void {
  pending = hint;
  for (const listener of listeners) listener();
}

/** Calls `listener` whenever a hint is left; the function returned stops it. */
export function onSignInHint(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether a hint waits. */
export const signInHintWaits = (): boolean => pending !== undefined;

/** The hint left for the sign-in screen, once. */
export function takeSignInHint(): SignInHint | undefined {
  const hint = pending;
  pending = undefined;
  return hint;
}
