/**
 * `npm start`: the server node on an embedded on-disk store (leveldb under DATA_DIR).
 * Reads the environment from ENVFILE (default .env) when there is one; a fresh machine without
 * any starts anyway (keys generated under DATA_DIR/keys, the admin password printed once).
 */
import { config as loadEnvFile } from 'dotenv';
import { DocstackError } from '../index.js';
import { server as serverPreset } from '../plugins.config.js';
import { appPlugins, loadAppConfig, type AppConfig } from './app-config.js';
import { createServerNode } from './node.js';

// every file and folder the node creates (leveldb, keys) is this user's only: 0600 / 0700
process.umask(0o077);
loadEnvFile({ path: process.env.ENVFILE ?? '.env', quiet: true });

if (process.env.BUILDING) {
  console.log('docstack: BUILDING is set, runtime initialisation skipped');
  process.exit(0);
}

/** A start-up failure: one line with the code, never a stack trace. */
function cannotStart(err: unknown): never {
  const message = err instanceof DocstackError ? `${err.code}: ${err.message}` : (err as Error).message;
  console.error(`docstack: cannot start — ${message}`);
  process.exit(1);
}

let node: ReturnType<typeof createServerNode>;
try {
  // the app's own code (DOCSTACK_CONFIG, relative to the working directory): plugins, trigger,
  // job and conflict handlers, routes (server/app-config.ts, docs/server.md#app-code)
  const app: AppConfig = process.env.DOCSTACK_CONFIG ? await loadAppConfig(process.env.DOCSTACK_CONFIG) : {};
  // reads and checks the configuration (SERVER_PORT, JWT_TTL…)
  node = createServerNode({ plugins: appPlugins(serverPreset, app), ...(app.routes ? { routes: app.routes } : {}) });
  if (process.env.DOCSTACK_CONFIG) console.log(`docstack: app configuration ${process.env.DOCSTACK_CONFIG} loaded`);
} catch (err) {
  cannotStart(err);
}
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
  const { url, port } = await node.start();
  // the address bound as configured (HOST, default 127.0.0.1), and the URL to reach it
  console.log(`docstack: listening on ${node.config.host}:${port}`);
  console.log(`docstack: node ready at ${url} (stack "${node.config.stackName}" in ${node.config.dataDir}; replication at ${url}/db/${node.config.stackName})`);
} catch (err) {
  // a clear start-up error (wrong passphrase, bad setting, a store in use), not a stack trace
  await node.stop().catch(() => undefined);
  cannotStart(err);
}
