/**
 * `npm run user -- reset-password <name>`: sets a new password on the node's own store, for a
 * lost admin password (ADMIN_PASSWORD is read on the first boot only). The new password is read
 * from standard input when it is piped (`echo 'new password' | npm run user -- reset-password admin`),
 * else generated and printed once. Every session of the user ends (deleted here; and bound to the
 * old hash, so refused by the node even if one were left). The node must be stopped: a
 * running node holds the store's lock (DS_STORAGE_LOCKED).
 */
import { randomBytes } from 'node:crypto';
import { config as loadEnvFile } from 'dotenv';
import { createStack, DocstackError } from '../../index.js';
import { server as serverPreset } from '../../plugins.config.js';
import { SESSION_CLASS } from '../auth/users.js';
import { UserAdmin } from '../auth/user-admin.js';
import { loadConfig } from '../config.js';
import '../errors-codes.js';

process.umask(0o077);
loadEnvFile({ path: process.env.ENVFILE ?? '.env', quiet: true });

const USAGE = 'usage: npm run user -- reset-password <name>   (the new password on stdin, or one is generated)';

function fail(err: unknown): never {
  const message = err instanceof DocstackError ? `${err.code}: ${err.message}` : (err as Error).message;
  console.error(`docstack user: ${message}`);
  process.exit(1);
}

async function readStdin(): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  const line = text.split(/\r?\n/)[0] ?? '';
  return line === '' ? null : line;
}

const [command, name] = process.argv.slice(2);
if (command !== 'reset-password' || !name) {
  console.error(USAGE);
  process.exit(2);
}

try {
  const config = loadConfig(process.env);
  const piped = await readStdin();
  const password = piped ?? randomBytes(18).toString('base64url');
  const stack = await createStack({ name: config.stackName, adapter: 'leveldb', dataDir: config.dataDir, plugins: serverPreset });
  try {
    const admin = new UserAdmin({ stack: () => stack, log: () => undefined });
    const user = await admin.require(name);
    // the sessions are bound to the old hash (refused from now on); they are also ended here
    await admin.setPassword(name, { password });
    const sessions = await stack.findDocuments(SESSION_CLASS, { userId: user._id });
    for (const session of sessions) await stack.deleteDocument(session._id, { origin: 'system' });
    console.log(`docstack user: the password of ${JSON.stringify(name)} was reset; ${sessions.length} session(s) ended.`);
    if (!piped) console.log(`docstack user: new password (shown once): ${password}`);
  } finally {
    await stack.close();
  }
} catch (err) {
  fail(err);
}
