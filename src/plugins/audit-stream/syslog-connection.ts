import { createSocket } from 'node:dgram';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

/** How messages reach the syslog server. */
export type SyslogTransport = 'tcp' | 'tls' | 'udp';

interface ConnectionOptions {
  host: string;
  port: number;
  transport: SyslogTransport;
  timeoutMs: number;
  ca?: string | string[] | undefined;
}

/** One connection to a syslog server, opened on the first write and again after it breaks. */
export class SyslogConnection {
  private socket: Socket | undefined;
  private opening: Promise<Socket> | undefined;

  constructor(private readonly options: ConnectionOptions) {}

  /** Writes one message; resolves once it is flushed to the connection (a datagram: sent). */
  async write(message: string): Promise<void> {
    const bytes = Buffer.from(message, 'utf8');
    if (this.options.transport === 'udp') return this.sendDatagram(bytes);
    const socket = await this.open();
    // RFC 6587 octet counting: the length, a space, the message.
    const frame = Buffer.concat([Buffer.from(`${bytes.length} `), bytes]);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`syslog write to ${this.where()} timed out`)), this.options.timeoutMs);
      const fail = (err: Error): void => {
        clearTimeout(timer);
        this.drop(socket);
        reject(err);
      };
      socket.write(frame, (err) => {
        if (err) return fail(err);
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Ends the connection. */
  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    if (socket === undefined || socket.destroyed) return;
    await new Promise<void>((resolve) => socket.end(resolve));
  }

  private where(): string {
    return `${this.options.host}:${this.options.port}`;
  }

  private drop(socket: Socket): void {
    socket.destroy();
    if (this.socket === socket) this.socket = undefined;
  }

  private open(): Promise<Socket> {
    if (this.socket !== undefined && !this.socket.destroyed) return Promise.resolve(this.socket);
    this.opening ??= new Promise<Socket>((resolve, reject) => {
      const { host, port, transport, timeoutMs, ca } = this.options;
      const socket = transport === 'tls' ? connectTls({ host, port, ca, servername: host }) : connectTcp({ host, port });
      const timer = setTimeout(() => socket.destroy(new Error(`syslog connection to ${this.where()} timed out`)), timeoutMs);
      socket.once(transport === 'tls' ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        // A later failure ends this connection; the next write opens another.
        socket.on('error', () => this.drop(socket));
        this.socket = socket;
        resolve(socket);
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        this.drop(socket);
        reject(err);
      });
      socket.once('close', () => this.drop(socket));
      // The server sends nothing back; reading keeps a half-closed connection from lingering.
      socket.resume();
    }).finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private sendDatagram(bytes: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = createSocket(this.options.host.includes(':') ? 'udp6' : 'udp4');
      socket.send(bytes, this.options.port, this.options.host, (err) => {
        socket.close();
        if (err) reject(err);
        else resolve();
      });
    });
  }
}
