import pg from 'pg';
import type { AppendNotice, ChangeNotices, MarketReader } from '../store.js';

/** How long to wait before listening again after the listening connection was lost. */
const RELISTEN_MS = 1000;
/**
 * How often a store read from a standby looks for new commits, as SQLite looks for another
 * process's (STORE_POLL_MS): a hot standby refuses LISTEN, and NOTIFY is not replicated.
 */
const STANDBY_POLL_MS = 250;
/**
 * How often a LISTEN connection is probed, and how long a probe (or a standby's poll) may take:
 * a connection the network lost without a reset (a host gone, a partition) would otherwise
 * look established for hours (TCP keep-alive's defaults), while no notice can arrive on it.
 */
export const DEFAULT_NOTICE_PROBE_MS = 5_000;

/**
 * Commits of other processes, as AppendNotices: the writer sends NOTIFY on the store's channel
 * with its origin at each commit that added events (delivered only if it commits); this LISTENs
 * while anyone listens, and on a notice from another origin reads the version and the days
 * whose revision rose since the last version seen (MarketReader.dayRevisions). A notice carries
 * no dates itself (NOTIFY payloads are small and a long ingest touches many days). A lost
 * listening connection is re-opened, and then the version is read again, so a commit missed
 * meanwhile is still announced. `added` is 0: another process's count is not known here.
 *
 * On a streaming replica (a hot standby) the same connection polls instead: every
 * STANDBY_POLL_MS it reads the version and whether the server is still a standby, and a
 * version above the one seen is announced as a notice would be; once the standby is promoted,
 * it LISTENs. A LISTEN connection is probed the same way every `probeMs`; a probe or poll
 * that fails or takes longer than `probeMs` counts as the connection lost.
 */
export class RemoteNotices {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** LISTEN succeeded on the current client, which has not been lost since. */
  private listening = false;
  /** The current client is on a standby and polls it (STANDBY_POLL_MS), not lost since. */
  private polling = false;
  /** The next poll or probe of the current client. */
  private probeTimer: NodeJS.Timeout | undefined;
  private checking: Promise<void> = Promise.resolve();
  /** When the oldest notice not yet read was sent (the writer's wall clock, ms). */
  private oldestUnread: number | undefined;
  /** The server's replay lag at the last poll or probe (serverState); undefined while not connected. */
  private lagSeconds: number | undefined;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly channel: string,
    private readonly origin: string,
    private readonly reader: MarketReader,
    private readonly emit: (notice: AppendNotice) => void,
    /** The version this process has seen (own commits raise it). */
    private seen: number,
    private readonly probeMs = DEFAULT_NOTICE_PROBE_MS,
  ) {}

  /** Own commits: remote notices start after them. */
  saw(version: number): void {
    if (version > this.seen) this.seen = version;
  }

  /** `lost` from start until LISTEN (or, on a standby, polling) starts, and from a lost connection until it starts again. */
  state(): ChangeNotices {
    if (!this.running) return 'idle';
    if (this.listening) return 'listening';
    return this.polling ? 'polling' : 'lost';
  }

  /** How far the server trails its primary, as of the last poll or probe (0 on a primary). */
  replicationLagSeconds(): number | undefined {
    return this.listening || this.polling ? this.lagSeconds : undefined;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.listen();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopProbing();
    this.listening = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await this.checking;
  }

  private async listen(): Promise<void> {
    // named after its channel, so that an operator (or a test) can tell the session in pg_stat_activity
    const client = new pg.Client({
      ...this.config,
      application_name: noticesSessionName(this.channel),
      query_timeout: this.probeMs,
    });
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
      const { standby, lagSeconds } = await serverState(client);
      this.lagSeconds = lagSeconds;
      if (!standby) await client.query(this.listenStatement());
      if (!this.running) {
        await client.end();
        return;
      }
      // still this listen's client: not lost (an error or end event) while it was set up
      if (this.client !== client) return;
      if (standby) this.polling = true;
      else this.listening = true;
      this.schedulePoll(client);
      this.check();
    } catch {
      this.lost(client);
    }
  }

  private listenStatement(): string {
    return `LISTEN ${pg.escapeIdentifier(this.channel)}`;
  }

  private schedulePoll(client: pg.Client): void {
    this.probeTimer = setTimeout(
      () => {
        this.probeTimer = undefined;
        void this.poll(client);
      },
      this.polling ? STANDBY_POLL_MS : this.probeMs,
    );
    this.probeTimer.unref();
  }

  /**
   * A standby's poll, or a LISTEN connection's probe: a version above the one seen is read as a
   * notice would be (on a LISTEN connection, a notice missed); a standby promoted LISTENs.
   */
  private async poll(client: pg.Client): Promise<void> {
    try {
      const { standby, version, lagSeconds } = await serverState(client);
      if (this.client !== client || !this.running) return;
      this.lagSeconds = lagSeconds;
      if (this.polling && !standby) {
        await client.query(this.listenStatement());
        if (this.client !== client || !this.running) return;
        this.polling = false;
        this.listening = true;
        // commits made between the last poll and the LISTEN
        this.check();
      } else if (version > this.seen) {
        this.check();
      }
      this.schedulePoll(client);
    } catch {
      this.lost(client);
    }
  }

  private stopProbing(): void {
    this.polling = false;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    this.stopProbing();
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

/**
 * Whether the server is a hot standby (in recovery: it refuses LISTEN, and gets no NOTIFY), the
 * store's version on it, and how far it trails its primary: 0 when it has replayed all the WAL
 * it received, else the time since the last transaction it replayed committed (the usual
 * measure; a standby cut off from its primary has replayed all it received, and shows 0); 0 on
 * a primary; undefined on a standby that has replayed no transaction yet.
 */
async function serverState(
  client: pg.Client,
): Promise<{ standby: boolean; version: number; lagSeconds: number | undefined }> {
  const { rows } = await client.query<{
    standby: boolean;
    version: string | number | null;
    lag: number | null;
  }>(
    `SELECT pg_is_in_recovery() AS standby, (SELECT value FROM meta WHERE key = 'version') AS version,
      CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
        ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END AS lag`,
  );
  const lag = rows[0]?.lag;
  return {
    standby: rows[0]?.standby === true,
    version: Number(rows[0]?.version ?? 0),
    lagSeconds: lag === null || lag === undefined ? undefined : Math.max(0, lag),
  };
}

/** The notices session's application_name: `<channel> notices` (`gridquote <schema> notices`), within PostgreSQL's 63 bytes. */
export function noticesSessionName(channel: string): string {
  return Buffer.from(`${channel} notices`).subarray(0, 63).toString();
}
