import { createReadStream } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { lastCompletedTradingDay } from '../domain/calendar.js';
import { isValidDate } from '../domain/dates.js';
import { type PublishableEvent, publishFeed } from '../feed/nats/publish-feed.js';
import { describeLineError, parseFeedLine } from '../feed/ndjson.js';
import { simulatedFeed } from '../feed/simulated-feed.js';
import { validateFeedEvent } from '../feed/validate.js';
import { readLineGroups } from '../ingest/read-lines.js';
import { parseReplaySchedule, type ReplaySchedule } from '../ingest/replay-schedule.js';
import { CliError, type CliIo, PROCESS_IO } from './cli-io.js';
import { abortOnShutdownSignal } from './stop-signal.js';
import { addStreamFlags, parseNatsUrl, parseWhole, retentionOf, type StreamFlags } from './stream-flags.js';

interface PublishFlags extends StreamFlags {
  readonly nats: string;
  readonly simulate?: boolean;
  readonly speed?: number;
  readonly seed: number;
  readonly from?: string;
  readonly days?: number;
  readonly replayClock?: ReplaySchedule;
  readonly warmUpFrom?: string;
}

/** `gridquote feed publish`: exchange events onto the feed's JetStream stream. */
export function registerFeed(program: Command, io: CliIo = PROCESS_IO): Command {
  const feed = program.command('feed').description('the exchange feed on a NATS JetStream stream');
  const publish = feed
    .command('publish')
    .description(
      'publish exchange events (docs/feed-format.md) to a JetStream stream, creating it if missing',
    )
    .requiredOption(
      '--nats <url>',
      'NATS server, nats://host:port or tls://host:port (TLS and credentials: docs/operations.md)',
      parseNatsUrl,
    )
    .argument('[feed]', "NDJSON file, or '-' for standard input (or --simulate)")
    .option('--simulate', 'publish the simulated exchange instead of a file')
    .option(
      '--speed <n>',
      'with --simulate: exchange seconds per real second (default: as fast as acked)',
      parseWhole('a speed', 1, 1_000_000),
    )
    .option(
      '--seed <n>',
      'with --simulate: simulator seed',
      parseWhole('a seed', 0, Number.MAX_SAFE_INTEGER),
      1,
    )
    .option(
      '--from <yyyyMMdd>',
      'with --simulate: first trading day (default: the last completed one)',
      parseDate,
    )
    .option(
      '--days <n>',
      'with --simulate: trading days to publish (default: 1, or without end with --speed)',
      parseWhole('days', 1, 10_000),
    )
    .option(
      '--replay-clock <day,instant,speed>',
      'with --simulate, instead of --from and --speed: release each event when the replay clock ' +
        'that the API replicas answer on (serve --replay-clock) reaches it; without end unless --days',
      parseSchedule,
    )
    .option(
      '--warm-up-from <yyyyMMdd>',
      'with --simulate: run the simulator unpublished from this day, so the feed continues a store seeded from it',
      parseDate,
    );
  addStreamFlags(publish).addHelpText(
    'after',
    '\nEach event is published as its canonical line on <stream>.events.<market> (index values on\n' +
      '<stream>.index) with the message id <date>-<seq>: JetStream drops a republished event within\n' +
      'its duplicate window, and the store skips it after that, so publishing again is safe.\n' +
      'Every publish is acknowledged by the stream before the command ends.',
  );
  publish.action(async (file: string | undefined, flags: PublishFlags) => {
    if ((file === undefined) === (flags.simulate !== true)) {
      throw new CliError(
        'feed publish needs exactly one source: a FILE, - for standard input, or --simulate',
      );
    }
    if (flags.replayClock !== undefined && (flags.speed !== undefined || flags.from !== undefined)) {
      throw new CliError(
        '--replay-clock sets the first day and the speed: give it without --from and --speed',
      );
    }
    const stop = abortOnShutdownSignal();
    try {
      const events = flags.simulate === true ? simulated(io, flags, stop.signal) : fromLines(io, file ?? '-');
      const label = flags.simulate === true ? 'simulated events' : 'events';
      const result = await publishFeed(
        {
          url: flags.nats,
          stream: flags.stream,
          retention: retentionOf(flags),
          log: (line) => io.stderr.write(`feed publish: ${line}\n`),
          signal: stop.signal,
        },
        events,
      );
      io.stderr.write(
        `published ${result.published + result.duplicates} ${label} to stream ${flags.stream} ` +
          `(${result.duplicates} were already there)\n`,
      );
    } finally {
      stop.dispose();
    }
  });
  return feed;
}

async function* simulated(
  io: CliIo,
  flags: PublishFlags,
  signal: AbortSignal,
): AsyncGenerator<PublishableEvent> {
  const paced = flags.speed !== undefined || flags.replayClock !== undefined;
  const days = flags.days ?? (paced ? undefined : 1);
  const from = flags.from ?? lastCompletedTradingDay(io.now());
  for await (const event of simulatedFeed({
    seed: flags.seed,
    from,
    signal,
    ...(days === undefined ? {} : { days }),
    ...(flags.speed === undefined ? {} : { speed: flags.speed }),
    ...(flags.replayClock === undefined ? {} : { schedule: flags.replayClock }),
    ...(flags.warmUpFrom === undefined ? {} : { warmUpFrom: flags.warmUpFrom }),
  })) {
    const result = validateFeedEvent(event);
    if (!result.ok)
      throw new Error(`the simulator made an invalid event ${event.date}-${event.seq}: ${result.reason}`);
    yield result;
  }
}

/** A file's events; the first invalid line stops publishing (events before it are published). */
async function* fromLines(io: CliIo, file: string): AsyncGenerator<PublishableEvent> {
  const input = (file === '-' ? io.stdin : createReadStream(file)) as AsyncIterable<Buffer | string>;
  let lineNumber = 0;
  try {
    for await (const group of readLineGroups(input)) {
      for (const text of group) {
        lineNumber += 1;
        if (text.trim() === '') continue;
        const parsed = parseFeedLine(text, lineNumber);
        if (!parsed.ok) {
          throw new CliError(`${describeLineError(parsed)}; the lines before it were published, none after`);
        }
        yield parsed;
      }
    }
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
      throw new CliError(`cannot read ${file}: no such file`);
    }
    throw error;
  }
}

function parseSchedule(text: string): ReplaySchedule {
  const parsed = parseReplaySchedule(text);
  if (typeof parsed === 'string') throw new InvalidArgumentError(parsed);
  return parsed;
}

function parseDate(text: string): string {
  if (!isValidDate(text)) throw new InvalidArgumentError('expected a date yyyyMMdd');
  return text;
}
