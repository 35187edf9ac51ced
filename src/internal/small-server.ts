import { configError } from '../base/errors';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A plain Node HTTP server with promise-based start/stop and a known base URL, for the servers
 * authgate runs itself (dev provider, local OAuth2 server). A handler's rejection goes to `onError`.
 */
export class SmallServer {
  private server: http.Server | undefined;
  private currentUrl = '';

  /**
   * @param what - how the server is named in errors.
   * @param handler - answers requests.
   * @param onError - answers when the handler rejects.
   */
  constructor(
    private readonly what: string,
    private readonly handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
    private readonly onError: (err: unknown, res: ServerResponse) => void,
  ) {}

  /** The base URL; throws before `start()`. */
  get url(): string {
    if (!this.currentUrl) throw configError(`the ${this.what} is not started: await start() first`);
    return this.currentUrl;
  }

  /** `true` while listening. */
  get started(): boolean {
    return this.currentUrl !== '';
  }

  /** Listens on `host:port` (0 picks a free port); resolves with the base URL. */
  async start(host: string, port: number): Promise<string> {
    if (this.server) return this.url;
    const server = http.createServer((req, res) => {
      this.handler(req, res).catch((err: unknown) => this.onError(err, res));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    this.server = server;
    const bound = (server.address() as AddressInfo).port;
    this.currentUrl = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    return this.currentUrl;
  }

  /** Stops listening, closing open connections. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.currentUrl = '';
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
