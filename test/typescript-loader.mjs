// `node --import <this file> some.ts`: runs TypeScript sources in a child process (see typescript-hooks.mjs).
import { register } from 'node:module';

register('./typescript-hooks.mjs', import.meta.url);
