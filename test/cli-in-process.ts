import { PassThrough, Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { expect } from 'vitest';
import type { CliIo } from '../src/cli/cli-io.js';
import { createProgram, runCli } from '../src/cli/run-cli.js';
import { openStore } from '../src/store/open-store.js';

/** What a `gridquote` run left: its exit code and all it wrote. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A command as main.ts registers it (registerSeed, registerKeys, ...). */
export type RegisterCommand = (program: Command, io: CliIo) => unknown;

export interface InProcessOptions {
  /** The commands the program knows. */
  readonly commands: readonly RegisterCommand[];
  /** The clock the commands read; the wall clock by default. */
  readonly now?: () => Date;
  /** What the command reads on stdin; nothing (an ended stream) by default. */
  readonly stdin?: string;
}

/** Runs `gridquote ...args` in process, as main.ts does, with the given commands, capturing its output. */
export async function runGridquote(args: readonly string[], options: InProcessOptions): Promise<CliResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const stdinText = options.stdin ?? '';
  const io: CliIo = {
    stdout,
    stderr,
    stdin: stdinText === '' ? new PassThrough().end() : Readable.from([stdinText]),
    now: options.now ?? (() => new Date()),
    openStore,
  };
  const program = createProgram({ stdout, stderr });
  for (const register of options.commands) register(program, io);
  const code = await runCli(program, ['node', 'gridquote', ...args], stderr);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** A failure is exactly one line on stderr, "gridquote: ...". */
export function expectOneLineError(result: Pick<CliResult, 'code' | 'stderr'>, pattern: RegExp): void {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(/^gridquote: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}
