/**
 * `npm run user -- <command> …`: the same as `docstack user <command> …` (users-cli.ts,
 * docs/cli.md), kept for the command the docs gave before the CLI had a bin.
 */
import { KEEP_RUNNING, runCli } from './run.js';

const code = await runCli(['user', ...process.argv.slice(2)]);
if (code !== KEEP_RUNNING) process.exit(code);
