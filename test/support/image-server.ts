import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** Makes a solid-colour PNG of the given size. */
export function makePng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
}

/** A loopback HTTP server answering fixed paths, for avatar fetch tests. */
export interface ImageServer {
  url: string;
  hits: Record<string, number>;
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1:0 answering each path in `routes` with its body and content type. */
export async function startImageServer(routes: Record<string, { body: Buffer | string; type?: string; status?: number; location?: string; hang?: boolean }>): Promise<ImageServer> {
  const hits: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    const route = routes[path];
    if (!route) {
      res.statusCode = 404;
      return res.end('not found');
    }
    if (route.hang) return undefined;
    if (route.location) res.setHeader('Location', route.location);
    res.statusCode = route.status ?? 200;
    res.setHeader('Content-Type', route.type ?? 'image/png');
    return res.end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
