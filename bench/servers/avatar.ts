// Benchmark server: one avatar in a file store, served by authgate's avatar router and by
// express.static from the same file. Prints READY with ports and paths.
import { listen } from '../lib/announce';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createAuth } from '../../src';

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'authgate-bench-ava-'));
  const auth = createAuth({ rateLimits: false, url: 'http://127.0.0.1:8080', secret: 'bench-secret-0123456789abcdef0123456789', avatarStore: root });
  const picture = await auth.avatars.put({ name: 'bench', id: 'local_bench', picture: '' });
  const avatarId = picture.split('/').pop() as string;

  const ours = express();
  ours.use('/avatar', auth.handlers().avatarRouter);
  const statics = express();
  statics.use('/avatar', express.static(root, { maxAge: 604800 * 1000 }));

  const ports = { authgate: await listen(ours), static: await listen(statics) };
  const paths = { authgate: `/avatar/${avatarId}`, static: `/avatar/${avatarId.slice(0, 2)}/${avatarId}` };
  console.log(`READY ${JSON.stringify({ ports, paths })}`);
}

void main();
