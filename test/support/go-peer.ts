import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { spawnReady, type ReadyProcess } from './ready-process';

const run = promisify(execFile);

/** Where the go-pkgz/auth peer lives: beside the project, or `GO_PKGZ_PEER`. */
export const GO_PEER_PATH = process.env.GO_PKGZ_PEER ?? resolve(__dirname, '../../../shared/peers/go-pkgz-auth/go-pkgz-peer');

/** The secret both sides sign with in the compatibility tests. */
export const GO_SECRET = 'xyz 12345';

/** Throws (never skips) when the peer program is missing, naming the path. */
export function requireGoPeer(): string {
  try {
    accessSync(GO_PEER_PATH, constants.X_OK);
  } catch {
    throw new Error(`the go-pkgz/auth peer is missing or not executable at ${GO_PEER_PATH} (see ../shared/peers/go-pkgz-auth/README.md, or set GO_PKGZ_PEER)`);
  }
  return GO_PEER_PATH;
}

/** A running `go-pkgz-peer serve`. */
export interface GoPeer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  stop(): Promise<void>;
}

/** Starts `go-pkgz-peer serve` on a free port. */
export async function startGoPeer(flags: string[] = []): Promise<GoPeer> {
  const proc: ReadyProcess = await spawnReady(['serve', '-secret', GO_SECRET, ...flags], { command: requireGoPeer() });
  return { url: `http://${proc.payload}`, stop: () => proc.stop() };
}

/** What `go-pkgz-peer mint` prints: a token made by go-pkgz's `token.Service.Set`. */
export interface GoMinted {
  jwt: string;
  jti: string;
  set_cookie: string[];
}

/** Runs `go-pkgz-peer mint` with the shared secret. */
export async function goMint(flags: string[] = []): Promise<GoMinted> {
  const { stdout } = await run(requireGoPeer(), ['mint', '-secret', GO_SECRET, ...flags]);
  return JSON.parse(stdout) as GoMinted;
}

/** What `go-pkgz-peer parse` prints: `null` errors mean accepted. */
export interface GoParsed {
  parse_error: string | null;
  claims: Record<string, unknown>;
  cookie_error: string | null;
  header_error: string | null;
}

/** Runs `go-pkgz-peer parse` on a token (as a cookie with `xsrf`, and as `X-JWT`). */
export async function goParse(token: string, xsrf = ''): Promise<GoParsed> {
  const { stdout } = await run(requireGoPeer(), ['parse', '-secret', GO_SECRET, '-token', token, '-xsrf', xsrf]);
  return JSON.parse(stdout) as GoParsed;
}
