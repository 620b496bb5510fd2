import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServerNode, type ServerNode, type ServerNodeOptions } from '../server/node.js';

export interface BenchNode {
  node: ServerNode;
  origin: string;
  /** the admin's JWT (Bearer) */
  token: string;
  /** stops the node and removes its data folder */
  stop(): Promise<void>;
}

/**
 * A real server node for a bench: leveldb in a temp folder, 127.0.0.1 on port 0, logged in as
 * its admin. `config` and `webhooks` go over the defaults; `setup` runs before the login (a
 * class the bench needs).
 */
export async function startBenchNode(name: string, options: Pick<ServerNodeOptions, 'config' | 'webhooks'> & { setup?: (node: ServerNode) => Promise<unknown> } = {}): Promise<BenchNode> {
  const dataDir = await mkdtemp(join(tmpdir(), `docstack-bench-${name}-`));
  const password = 'bench admin password';
  const node = createServerNode({
    env: { NODE_ENV: 'test', ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: password, ENCRYPTION_PASSPHRASE: 'bench' },
    config: { port: 0, host: '127.0.0.1', dataDir, ...options.config },
    log: () => undefined,
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
  });
  const stop = async () => {
    await node.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const { url } = await node.start();
    await options.setup?.(node);
    const res = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
    const token = /jwtToken=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
    if (!token) throw new Error(`login failed: ${res.status}`);
    return { node, origin: url, token, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
