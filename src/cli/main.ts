#!/usr/bin/env node
import { registerBackup } from './backup.js';
import { registerCluster } from './cluster.js';
import { registerDemo } from './demo.js';
import { registerExport } from './export.js';
import { registerFeed } from './feed.js';
import { registerGet } from './get.js';
import { registerIngest } from './ingest.js';
import { registerKeys } from './keys.js';
import { registerMigrate } from './migrate.js';
import { createProgram, runCli } from './run-cli.js';
import { registerSeed } from './seed.js';
import { registerServe } from './serve.js';

const program = createProgram();
registerSeed(program);
registerIngest(program);
registerFeed(program);
registerExport(program);
registerBackup(program);
registerServe(program);
registerKeys(program);
registerDemo(program);
registerCluster(program);
registerGet(program);
registerMigrate(program);

process.exitCode = await runCli(program, process.argv);
