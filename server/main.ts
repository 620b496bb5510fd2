/**
 * `npm start`: the server node on an embedded on-disk store (leveldb under DATA_DIR).
 * Reads the environment from ENVFILE (default .env) when there is one; a fresh machine without
 * any starts anyway (keys generated under DATA_DIR/keys, the admin password printed once).
 */
import { config as loadEnvFile } from 'dotenv';
import { DocstackError } from '../kernel/errors.js';
import { createServerNode } from './node.js';

loadEnvFile({ path: process.env.ENVFILE ?? '.env', quiet: true });

if (process.env.BUILDING) {
  console.log('docstack: BUILDING is set, runtime initialisation skipped');
  process.exit(0);
}

const node = createServerNode();
let stopping = false;

async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`docstack: ${signal} received, stopping (in-flight requests finish first)`);
  try {
    await node.stop();
    process.exit(0);
  } catch (err) {
    console.error(`docstack: stop failed: ${(err as Error).message}`);
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
node.on('error', (err: Error) => console.error(`docstack: ${err.message}`));

try {
  const { url } = await node.start();
  console.log(`docstack: node ready at ${url} (stack "${node.config.stackName}" in ${node.config.dataDir}; replication at ${url}/db/${node.config.stackName})`);
} catch (err) {
  // a clear start-up error (wrong passphrase, bad setting), not a stack trace
  const message = err instanceof DocstackError ? `${err.code}: ${err.message}` : (err as Error).message;
  console.error(`docstack: cannot start — ${message}`);
  await node.stop().catch(() => undefined);
  process.exit(1);
}
