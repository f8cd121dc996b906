import { type Command, InvalidArgumentError } from 'commander';
import {
  checkStreamName,
  DEFAULT_RETENTION,
  DEFAULT_STREAM,
  type StreamRetention,
} from '../feed/nats/feed-stream.js';
import { CliError } from './cli-io.js';

/** The flags `feed publish` and `ingest --from` share: the stream and, if they create it, its retention. */
export interface StreamFlags {
  readonly stream: string;
  readonly maxAgeHours: number;
  readonly maxBytes: number;
}

export function addStreamFlags(command: Command): Command {
  return command
    .option(
      '--stream <name>',
      'JetStream stream of the feed (subjects <name>.>)',
      parseStreamName,
      DEFAULT_STREAM,
    )
    .option(
      '--max-age-hours <n>',
      'retention of a stream created here: messages older than this are dropped',
      parseWhole('hours', 1, 24 * 3650),
      DEFAULT_RETENTION.maxAgeMs / 3_600_000,
    )
    .option(
      '--max-bytes <n>',
      'retention of a stream created here: the oldest messages go beyond this size',
      parseWhole('bytes', 1_048_576, Number.MAX_SAFE_INTEGER),
      DEFAULT_RETENTION.maxBytes,
    );
}

export function retentionOf(flags: StreamFlags): StreamRetention {
  return { maxAgeMs: flags.maxAgeHours * 3_600_000, maxBytes: flags.maxBytes };
}

/**
 * A CliError, not commander's InvalidArgumentError, which would repeat the value: a NATS URL may
 * hold a password.
 */
export function parseNatsUrl(text: string): string {
  if (!text.split(',').every((server) => /^(nats|tls):\/\/\S+$/.test(server.trim()))) {
    throw new CliError(
      'NATS: expected nats://host:port or tls://host:port (comma-separated for several servers); the value is not shown: it may hold a password',
    );
  }
  return text;
}

function parseStreamName(text: string): string {
  const problem = checkStreamName(text);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return text;
}

export function parseWhole(what: string, min: number, max: number) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) {
      throw new InvalidArgumentError(`expected ${what} (${min}..${max})`);
    }
    return value;
  };
}
