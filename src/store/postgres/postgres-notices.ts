import pg from 'pg';
import type { AppendNotice, ChangeNotices, MarketReader } from '../store.js';

/** How long to wait before listening again after the listening connection was lost. */
const RELISTEN_MS = 1000;

/**
 * Commits of other processes, as AppendNotices: the writer sends NOTIFY on the store's channel
 * with its origin at each commit that added events (delivered only if it commits); this LISTENs
 * while anyone listens, and on a notice from another origin reads the version and the days
 * whose revision rose since the last version seen (MarketReader.dayRevisions). A notice carries
 * no dates itself (NOTIFY payloads are small and a long ingest touches many days). A lost
 * listening connection is re-opened, and then the version is read again, so a commit missed
 * meanwhile is still announced. `added` is 0: another process's count is not known here.
 */
export class RemoteNotices {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** LISTEN succeeded on the current client, which has not been lost since. */
  private listening = false;
  private checking: Promise<void> = Promise.resolve();
  /** When the oldest notice not yet read was sent (the writer's wall clock, ms). */
  private oldestUnread: number | undefined;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly origin: string,
    private readonly reader: MarketReader,
    private readonly emit: (notice: AppendNotice) => void,
    /** The version this process has seen (own commits raise it). */
    private seen: number,
  ) {}

  /** Own commits: remote notices start after them. */
  saw(version: number): void {
    if (version > this.seen) this.seen = version;
  }

  /** `lost` from start until LISTEN succeeds, and from a lost connection until it succeeds again. */
  state(): ChangeNotices {
    if (!this.running) return 'idle';
    return this.listening ? 'listening' : 'lost';
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.listen();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.listening = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await this.checking;
  }

  private async listen(): Promise<void> {
    // named, so that an operator (or a test) can tell the listening session in pg_stat_activity
    const client = new pg.Client({ ...this.config, application_name: 'gridquote notices' });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.channel !== this.channel) return;
      // `<origin> <ms sent>` (postgres-writer.ts); the oldest unread notice times the delay.
      const [origin, sent] = (message.payload ?? '').split(' ');
      if (origin === this.origin) return;
      const sentMs = Number(sent);
      if (this.oldestUnread === undefined && Number.isFinite(sentMs)) this.oldestUnread = sentMs;
      this.check();
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
      if (!this.running) {
        await client.end();
        return;
      }
      // still this listen's client: not lost (an error or end event) while LISTEN ran
      if (this.client === client) this.listening = true;
      this.check();
    } catch {
      this.lost(client);
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    client.end().catch(() => undefined);
    if (!this.running || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running) void this.listen();
    }, RELISTEN_MS);
    this.timer.unref();
  }

  /** Reads what changed since the version seen; checks run one after another. */
  private check(): void {
    this.checking = this.checking.then(async () => {
      try {
        const notifiedAtMs = this.oldestUnread;
        this.oldestUnread = undefined;
        const version = await this.reader.version();
        if (version <= this.seen) return;
        const revisions = await this.reader.dayRevisions(this.seen);
        this.seen = version;
        this.emit({
          version,
          added: 0,
          dates: [...revisions.keys()].sort(),
          revisions,
          ...(notifiedAtMs === undefined ? {} : { notifiedAtMs }),
        });
      } catch {
        // the database is away; the re-listen after it returns checks again
      }
    });
  }
}
