#!/usr/bin/env node
// Run after any `npm install` that rewrites package-lock.json: `node scripts/complete-lockfile.mjs package-lock.json`.
// Adds lock entries for Biome's optional platform binaries that this workplace's registry
// does not mirror; npm ci needs them listed (it skips them on other platforms).
import { readFileSync, writeFileSync } from 'node:fs';
const path = process.argv[2];
const lock = JSON.parse(readFileSync(path, 'utf8'));
const biome = lock.packages['node_modules/@biomejs/biome'];
const platforms = {
  'cli-android-arm64': [['android'], ['arm64'], undefined],
  'cli-android-x64': [['android'], ['x64'], undefined],
  'cli-darwin-arm64': [['darwin'], ['arm64'], undefined],
  'cli-darwin-x64': [['darwin'], ['x64'], undefined],
  'cli-linux-arm64': [['linux'], ['arm64'], ['glibc']],
  'cli-linux-arm64-musl': [['linux'], ['arm64'], ['musl']],
  'cli-linux-x64': [['linux'], ['x64'], ['glibc']],
  'cli-linux-x64-musl': [['linux'], ['x64'], ['musl']],
  'cli-win32-arm64': [['win32'], ['arm64'], undefined],
  'cli-win32-x64': [['win32'], ['x64'], undefined],
};
let added = 0;
for (const name of Object.keys(biome.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const [os, cpu, libc] = platforms[name.split('/')[1]] ?? [];
  lock.packages[key] = {
    version: biome.optionalDependencies[name], cpu, dev: true, ...(libc ? { libc } : {}),
    license: 'MIT OR Apache-2.0', optional: true, os, engines: { node: '>=14.21.3' },
  };
  added += 1;
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} entries`);
