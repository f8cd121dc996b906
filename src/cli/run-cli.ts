import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';

const NAME = 'gridquote';

/**
 * The program shell every command registers on: commander reports usage errors as
 * "gridquote: <message>" and throws instead of exiting, so runCli owns the exit code.
 */
export function createProgram(
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream } = process,
): Command {
  return new Command(NAME)
    .description('market data of an AU/NZ energy derivatives exchange: store, feed and query API')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => streams.stdout.write(text),
      writeErr: (text) => streams.stderr.write(text),
      outputError: (text, write) => write(oneLine(text.replace(/^error: /, ''))),
    });
}

/**
 * Runs the program and returns the exit code. Every failure ends as ONE line on stderr (no
 * stack trace): usage errors as commander words them, refusals and faults by their message.
 */
export async function runCli(
  program: Command,
  argv: readonly string[],
  stderr: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  try {
    await program.parseAsync(argv as string[]);
    return 0;
  } catch (error) {
    // commander has already printed its own message (help, version, usage errors)
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ReportedElsewhere) return 1;
    // Settings are all checked at once: one line per problem, so one restart fixes them all.
    if (error instanceof ConfigError) {
      for (const problem of error.problems) stderr.write(oneLine(`config: ${problem}`));
      return 1;
    }
    stderr.write(oneLine(describe(error)));
    return 1;
  }
}

/**
 * A failure said already (a serve worker's, which its primary reports once for all the workers;
 * the demo's, logged as it stopped): the exit code is 1 and nothing is printed here.
 */
export class ReportedElsewhere extends Error {}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

function oneLine(text: string): string {
  return `${NAME}: ${text.replace(/\s*\n\s*/g, ' ').trim()}\n`;
}
