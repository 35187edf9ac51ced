import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { consoleLogger, logTo, noopLogger, warningsLogger, type LeveledLogger } from '../../src';
import type { AuthPlugin } from '../../src/plugin';
import { makeApp } from '../support/auth-app';

/** A real pino writing JSON lines into an array. */
function pinoInto(lines: Array<Record<string, unknown>>): LeveledLogger {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done): void {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}

const failingAfterHook: AuthPlugin = { name: 'notes', setup: () => ({ actions: { 'sign-in': { after: async () => Promise.reject(new Error('notes store down')) } } }) };

describe('the leveled logger', () => {
  it('gives pino the fields and the filled message at the right level, from a real failure in a request', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const { app, auth } = makeApp({ plugins: [failingAfterHook], logger: pinoInto(lines) });
    expect((await request(app).post('/auth/local/login').send({ user: 'ann@example.com', passwd: 'pw' })).status).toBe(200);
    await auth.close();
    const warning = lines.find((l) => l.plugin === 'notes');
    expect(warning).toMatchObject({ level: 40, plugin: 'notes', action: 'sign-in', error: 'notes store down', msg: 'plugin notes: its after hook of sign-in failed: notes store down' });
    // Provider registration is an info line; nothing of a password or token reaches the log.
    expect(lines).toContainEqual(expect.objectContaining({ level: 30, provider: 'local', msg: 'provider local registered' }));
    expect(JSON.stringify(lines)).not.toMatch(/"pw"|JWT|eyJ/);
  });

  it('fits the console as it is', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      logTo(console).warn('webhook {webhook}: event {id} dropped after {attempts} attempts', { webhook: 'w1', id: 'e1', attempts: 3 });
      expect(warn.mock.calls).toEqual([[{ webhook: 'w1', id: 'e1', attempts: 3 }, 'webhook w1: event e1 dropped after 3 attempts']]);
    } finally {
      warn.mockRestore();
    }
  });

  it('gives a line logger the level prefix, the template with %s and the values as arguments', () => {
    const calls: unknown[][] = [];
    const log = logTo({ logf: (...args: unknown[]) => void calls.push(args) });
    log.error('{duty} of {event} failed: {error}', { duty: 'mail', event: 'user.login', error: 'ETIMEDOUT' });
    log.debug('no fields here');
    expect(calls).toEqual([['[ERROR] %s of %s failed: %s', 'mail', 'user.login', 'ETIMEDOUT'], ['[DEBUG] no fields here']]);
  });

  it('escapes control characters in values, so a value a client chose cannot start a line of its own', () => {
    const lines: string[] = [];
    const forged = 'x\n2026-11-29T00:00:00.000Z [authgate] [ERROR] the state store (postgres://db/app) failed\u001b[2J';
    logTo({ logf: (format: string, ...args: unknown[]) => void lines.push(format.replace(/%s/g, () => String(args.shift()))) }).warn('refused: {reason}', { reason: forged });
    logTo({ debug: () => undefined, info: () => undefined, warn: (_f, message) => void lines.push(message), error: () => undefined }).warn('refused: {reason}', { reason: forged });
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect([line.includes('\n'), line.includes('\u001b')]).toEqual([false, false]);
      expect(line).toContain('x\\n2026-11-29');
    }
  });

  it('drops what a logger that throws fails to write: the request is answered and the other hooks run', async () => {
    const failing = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => {
        throw new Error('log disk full');
      },
      error: () => {
        throw new Error('log disk full');
      },
    };
    const heard: string[] = [];
    const listening: AuthPlugin = { name: 'listening', setup: () => ({ actions: { 'sign-in': { after: async (_call, outcome) => void heard.push(outcome) } } }) };
    const { app, auth } = makeApp({ plugins: [failingAfterHook, listening], logger: failing });
    expect((await request(app).post('/auth/local/login').send({ user: 'ann@example.com', passwd: 'pw' })).status).toBe(200);
    expect(heard).toEqual(['succeeded']);
    await auth.close();
  });

  it('keeps the defaults quiet below warn, and refuses a logger it cannot write to', () => {
    const out = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const err = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      logTo(warningsLogger).info('started');
      logTo(warningsLogger).warn('a store on {host} is slow', { host: 'db' });
      logTo(noopLogger).error('nothing');
      logTo(consoleLogger).info('listening on {url}', { url: 'http://localhost:8080' });
      expect(out.mock.calls.map((c) => c[0])).toEqual([expect.stringMatching(/^\d{4}-.*Z \[authgate\] \[INFO\] listening on http:\/\/localhost:8080$/)]);
      expect(err.mock.calls.map((c) => c[0])).toEqual([expect.stringMatching(/\[authgate\] \[WARN\] a store on db is slow$/)]);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(() => logTo({ info: () => undefined } as never)).toThrow(/debug, info, warn and error methods .* or logf/);
  });
});
