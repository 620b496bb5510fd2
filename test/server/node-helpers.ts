import { createServerNode, type ServerNode, type ServerNodeOptions } from '../../server/node.js';
import { tempDir } from '../helpers/stack.js';
import { afterEach } from 'vitest';

const nodes: ServerNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
});

export const ADMIN = { username: 'admin', password: 'admin password for tests' };

/** A node on 127.0.0.1, port 0, a temp data dir, quiet logs (kept in `lines`), stopped after the test. */
export async function testNode(options: ServerNodeOptions & { dataDir?: string; env?: Record<string, string> } = {}) {
  const lines: string[] = [];
  const dataDir = options.dataDir ?? (await tempDir());
  const node = createServerNode({
    ...options,
    env: { NODE_ENV: 'test', ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ENCRYPTION_PASSPHRASE: 'test key passphrase', ...options.env },
    config: { port: 0, host: '127.0.0.1', dataDir, ...options.config },
    log: (line) => lines.push(line),
  });
  nodes.push(node);
  return { node, lines, dataDir };
}

export async function login(url: string, username = ADMIN.username, password = ADMIN.password): Promise<{ token: string; sessionId: string; status: number }> {
  const res = await fetch(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  const cookie = res.headers.get('set-cookie') ?? '';
  const token = /jwtToken=([^;]+)/.exec(cookie)?.[1] ?? '';
  const body = (await res.json()) as { sessionId?: string };
  return { token, sessionId: body.sessionId ?? '', status: res.status };
}
