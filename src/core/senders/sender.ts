import type { MaybePromise } from '../token/hooks';

/** Delivers a verification message (e-mail, SMS, chat...) to an address. */
export interface Sender {
  /** Sends `text` to `address`; rejects when it could not. */
  send(address: string, text: string): Promise<void>;
  /** `text/html` makes template values HTML-escaped. @default 'text/plain' */
  readonly contentType?: string;
  /** Refuses unusable addresses before anything is sent. @default every non-empty address is accepted */
  validateAddress?(address: string): boolean;
}

/**
 * What may be logged of a sender's failure: the message of authgate's own SenderError (it names
 * the kind of failure only), else just the error's name, since another sender's message could
 * quote the text it failed to send (a login token).
 */
export function describeSendFailure(err: unknown): string {
  const e = err as Error | undefined;
  return e?.name === 'SenderError' ? e.message : (e?.name ?? typeof err);
}

/** A {@link Sender} from a plain function. */
export function senderFunc(fn: (address: string, text: string) => MaybePromise<void>, contentType = 'text/plain'): Sender {
  return {
    contentType,
    async send(address: string, text: string): Promise<void> {
      await fn(address, text);
    },
  };
}
