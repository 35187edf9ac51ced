/**
 * What a store's `subscribe` (and `PgDatabase.listen`) returns: messages arrive while `live` is `true`. When it turns
 * `false` (a lost connection), messages may have been missed, and the subscriber's `onGap` ran.
 */
export interface Subscription {
  /** Whether messages are being delivered now. */
  readonly live: boolean;
  /** Stops the subscription. */
  close(): Promise<void>;
}
