/**
 * Waits before attempt `attempt` (from 0) of a write that met another on the same record: a few
 * ms, doubling to 64 ms, randomised so writers that met do not meet again. Never gives up: the
 * caller loops until its write lands.
 */
export function afterContention(attempt: number): Promise<void> {
  const ceiling = Math.min(64, 2 ** Math.min(attempt, 6));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}
