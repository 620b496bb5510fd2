/**
 * The peer of bench/replication in a process of its own, as pouchdb-server is: the real server
 * node (server/node.ts — readiness gate, session check, replication router, authority,
 * integrations) on leveldb in the folder given as the first argument, on 127.0.0.1, port 0.
 * It creates the bench's class and the non-admin user it is given (so the visibility rules are those of an
 * ordinary peer), then prints one line `docstack-bench-node <port>`; SIGTERM stops it cleanly
 * (so `node --cpu-prof` writes its profile).
 *
 * Run by bench/replication.ts: `node --import tsx bench/replication-node.ts <dataDir> <user> <password>`.
 */
import { Class } from '../index.js';
import { createUser } from '../server/auth/users.js';
import { createServerNode } from '../server/node.js';

const [dataDir, username, password] = process.argv.slice(2);
if (!dataDir || !username || !password) {
  console.error('usage: replication-node.ts <dataDir> <username> <password>');
  process.exit(2);
}

const node = createServerNode({
  env: { NODE_ENV: 'test', ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'bench admin password', ENCRYPTION_PASSPHRASE: 'bench key passphrase' },
  config: { port: 0, host: '127.0.0.1', dataDir, stackName: 'docstack' },
  log: () => undefined,
});
const { port } = await node.start();
await Class.create(node.stack(), 'Item', 'class', '', { title: { type: 'string', mandatory: true }, n: { type: 'integer' }, tags: { type: 'string', isArray: true } });
await createUser(node.stack(), username, password);
console.log(`docstack-bench-node ${port}`);

let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  node.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
