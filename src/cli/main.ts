#!/usr/bin/env node
import { registerExport } from './export.js';
import { registerIngest } from './ingest.js';
import { createProgram, runCli } from './run-cli.js';
import { registerSeed } from './seed.js';

const program = createProgram();
registerSeed(program);
registerIngest(program);
registerExport(program);
// ---- lead: register the API engineer's commands here: registerServe(program); registerKeys(program); ----

process.exitCode = await runCli(program, process.argv);
