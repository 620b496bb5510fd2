#!/usr/bin/env node
/** The `docstack` command (package.json `bin`); the commands are in run.ts, docs/cli.md. */
import { KEEP_RUNNING, runCli } from './run.js';

const code = await runCli(process.argv.slice(2));
// a command's leftovers (an idle HTTP connection) do not hold the exit; a started node runs on
if (code !== KEEP_RUNNING) process.exit(code);
