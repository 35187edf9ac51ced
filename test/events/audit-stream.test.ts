import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logs, SeverityNumber } from '@opentelemetry/api';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import request from 'supertest';
import { auditStream, otelLogSink, syslogSink, type AuditSink } from '../../src/audit-stream';
import { makeApp } from '../support/auth-app';
import { spawnTracked, type TrackedChild } from '../support/children';
import { eventually } from '../support/eventually';
import { freePort } from '../support/ports';

const RSYSLOGD = '/usr/sbin/rsyslogd';
const describeRsyslog = existsSync(RSYSLOGD) || process.env.AUTHGATE_REQUIRE_SERVERS === '1' ? describe : describe.skip;

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describeRsyslog('the audit stream to a real rsyslog over TCP (RFC 5424, octet counting)', () => {
  let dir: string;
  let port: number;
  let rsyslog: TrackedChild | undefined;

  const start = async (): Promise<void> => {
    rsyslog = spawnTracked(RSYSLOGD, ['-n', '-f', join(dir, 'rsyslog.conf'), '-i', join(dir, 'rsyslog.pid')], { stdio: 'ignore', what: 'rsyslogd' });
    await eventually(async () => expect(await listening(port)).toBe(true), 15_000, 100);
  };
  const received = async (): Promise<string[]> => (existsSync(join(dir, 'events.log')) ? (await readFile(join(dir, 'events.log'), 'utf8')).split('\n').filter(Boolean) : []);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-rsyslog-'));
    port = await freePort();
    await writeFile(
      join(dir, 'rsyslog.conf'),
      [
        `global(workDirectory="${dir}")`,
        'module(load="imtcp")',
        `input(type="imtcp" address="127.0.0.1" port="${port}" ruleset="authgate")`,
        'template(name="line" type="string" string="%pri% %app-name% %msgid% %structured-data% %msg%\\n")',
        `ruleset(name="authgate") { action(type="omfile" file="${join(dir, 'events.log')}" template="line" flushOnTXEnd="on" asyncWriting="off") }`,
        '',
      ].join('\n'),
    );
    await start();
  }, 30_000);

  afterAll(async () => {
    await rsyslog?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('delivers each event as one message rsyslog parses: authpriv, warning for a refusal, the type as MSGID, the id in structured data, the event as JSON', async () => {
    const { app, auth } = makeApp({ plugins: [auditStream({ sinks: [syslogSink({ host: '127.0.0.1', port })] })] });
    try {
      await request(app).post('/auth/local/login').send({ user: 'gina', passwd: 'pw' }).expect(200);
      await request(app).post('/auth/local/login').send({ user: 'gina', passwd: 'nope' }).expect(403);
      await auth.events.flush();
      const lines = await eventually(async () => {
        const found = (await received()).filter((line) => line.includes(' login.'));
        expect(found).toHaveLength(2);
        return found;
      });
      const [ok, failed] = lines as [string, string];
      expect(ok).toMatch(/^85 authgate login\.succeeded \[authgate@32473 id="evt_[0-9a-z]+"\] \{/);
      expect(failed).toMatch(/^84 authgate login\.failed \[authgate@32473 id="evt_[0-9a-z]+"\] \{/);
      const event = JSON.parse(failed.slice(failed.indexOf('{'))) as { type: string; id: string; data: { provider: string } };
      expect([event.type, event.data.provider, failed.includes(`id="${event.id}"`)]).toEqual(['login.failed', 'local', true]);
      expect(lines.join('\n')).not.toMatch(/"passwd"|nope/);
    } finally {
      await auth.close();
    }
  });

  it('sends again what it could not send while rsyslog was down, once it is back (at least once)', async () => {
    const { app, auth } = makeApp({ plugins: [auditStream({ sinks: [syslogSink({ host: '127.0.0.1', port, timeoutMs: 500 })], types: ['login.succeeded'] })] });
    try {
      const count = async (type: string): Promise<number> => (await received()).filter((line) => line.includes(` ${type} `)).length;
      const [succeeded, failed] = [await count('login.succeeded'), await count('login.failed')];
      await rsyslog?.stop();
      await request(app).post('/auth/local/login').send({ user: 'hank', passwd: 'pw' }).expect(200);
      await auth.events.flush();
      await start();
      await eventually(async () => expect(await count('login.succeeded')).toBe(succeeded + 1), 20_000, 200);
      // The sink sends only the types asked for.
      await request(app).post('/auth/local/login').send({ user: 'hank', passwd: 'nope' });
      await auth.events.flush();
      await new Promise((r) => setTimeout(r, 300));
      expect(await count('login.failed')).toBe(failed);
    } finally {
      await auth.close();
    }
  }, 30_000);
});

describe('the audit stream as OpenTelemetry log records', () => {
  afterAll(() => logs.disable());

  it('emits each event to the logger provider the app registered, with its id, type and severity', async () => {
    const exporter = new InMemoryLogRecordExporter();
    logs.setGlobalLoggerProvider(new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] }));
    const { app, auth } = makeApp({ plugins: [auditStream({ sinks: [otelLogSink()] })] });
    try {
      await request(app).post('/auth/local/login').send({ user: 'ivy', passwd: 'nope' }).expect(403);
      await auth.events.flush();
      const records = exporter.getFinishedLogRecords().filter((r) => r.attributes['authgate.event.type'] === 'login.failed');
      expect(records).toHaveLength(1);
      const [record] = records;
      expect([record!.severityNumber, record!.eventName, String(record!.attributes['authgate.event.id'])]).toEqual([SeverityNumber.WARN, 'authgate.login.failed', expect.stringMatching(/^evt_/)]);
      expect(JSON.parse(String(record!.body))).toMatchObject({ type: 'login.failed', data: { provider: 'local' } });
    } finally {
      await auth.close();
    }
  });
});

describe('auditStream() options', () => {
  it('refuses no sinks, a sink without send, two sinks of one name, and bad syslog settings, with clear errors', () => {
    const sink: AuditSink = { name: 'mine', send: async () => undefined };
    expect(() => auditStream({ sinks: [] })).toThrow(/at least one sink/);
    expect(() => auditStream({ sinks: [{ name: 'x' } as AuditSink] })).toThrow(/name and send/);
    expect(() => auditStream({ sinks: [sink, sink] })).toThrow(/two sinks are named mine/);
    expect(() => syslogSink({ host: '' })).toThrow(/host/);
    expect(() => syslogSink({ host: 'h', transport: 'smtp' as never })).toThrow(/tcp, tls or udp/);
    expect(() => syslogSink({ host: 'h', facility: 24 })).toThrow(/facility/);
  });
});
