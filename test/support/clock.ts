/**
 * Sets the process clock (`Date` only: timers and sockets keep real time) to `unixSeconds`, from
 * where it runs on with real time: recorded tokens are then as fresh or as old as when they were
 * judged, and a test can let a session grow old without waiting. Undo with `jest.useRealTimers()`.
 */
export function setClock(unixSeconds: number): void {
  jest.useFakeTimers({
    now: unixSeconds * 1000,
    advanceTimers: true,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}
