import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * The child processes of `gridquote cluster`: each a `gridquote` command of this very program
 * (same Node, same loader, same entry script), its output passed on line by line under its
 * name (`[api-1] ...`). Each runs in a process group of its own, so that a terminal's Ctrl-C
 * reaches the cluster alone, which then stops every child with one SIGTERM (a second signal
 * would hurry a server's drain).
 *
 * A child that exits while the cluster is not stopping is restarted after a second with the
 * same arguments (a replica, the ingest worker and the publisher all resume by themselves);
 * one that exits more than MAX_RESTARTS times within RESTART_WINDOW_MS stops the cluster.
 */
export interface ChildSpec {
  readonly name: string;
  /** The gridquote command and its flags, e.g. ['serve', '--db', ...]. */
  readonly args: readonly string[];
  /** Variables added to this process's environment (secrets: not on the command line). */
  readonly env?: Readonly<Record<string, string>>;
  /** A line of its stderr announcing it is ready, and what of it to keep (the address). */
  readonly ready?: RegExp;
}

export interface RunningChild {
  readonly spec: ChildSpec;
  readonly pid: number | undefined;
  /** The first group of `ready` in the line that announced it; '' without `ready`. */
  readonly address: string;
}

const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;
const RESTART_DELAY_MS = 1_000;

export interface SupervisorEvents {
  readonly log: (line: string) => void;
  /** A child was restarted and is ready again (a replica's new address). */
  readonly restarted: (child: RunningChild) => void;
  /** A child failed too often: the cluster must stop. */
  readonly gaveUp: (reason: string) => void;
}

export class Supervisor {
  private readonly children = new Map<string, { process: ChildProcess; exits: number[] }>();
  private stopping = false;

  constructor(private readonly events: SupervisorEvents) {}

  /** Starts a child and resolves once it is ready; rejects if it exits first (it is not restarted). */
  async start(spec: ChildSpec): Promise<RunningChild> {
    return this.launch(spec, []);
  }

  /** The pids of the children running now. */
  pids(): number[] {
    return [...this.children.values()].flatMap((child) =>
      child.process.exitCode === null && child.process.signalCode === null && child.process.pid !== undefined
        ? [child.process.pid]
        : [],
    );
  }

  /**
   * SIGTERM to every child (or those named), then waits for them to exit; after `killAfterMs`
   * the remaining ones are killed. No child is restarted from now on.
   */
  async stop(killAfterMs: number, names?: readonly string[]): Promise<void> {
    this.stopping = true;
    const running = [...this.children.entries()]
      .filter(([name]) => names === undefined || names.includes(name))
      .map(([, child]) => child.process)
      .filter((child) => child.exitCode === null && child.signalCode === null);
    const exited = running.map((child) => new Promise((resolve) => child.once('exit', resolve)));
    for (const child of running) child.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const child of running) {
        if (child.exitCode === null && child.signalCode === null) {
          this.events.log(`cluster: pid ${child.pid} did not stop within ${killAfterMs} ms; killing it`);
          child.kill('SIGKILL');
        }
      }
    }, killAfterMs);
    await Promise.all(exited);
    clearTimeout(timer);
  }

  /** Last resort (the cluster itself failing): kill whatever still runs, synchronously. */
  killAll(): void {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  private launch(spec: ChildSpec, exits: number[]): Promise<RunningChild> {
    const entry = process.argv[1] ?? '';
    const child = spawn(process.execPath, [...process.execArgv, entry, ...spec.args], {
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.children.set(spec.name, { process: child, exits });
    const prefix = `[${spec.name}] `;
    return new Promise<RunningChild>((resolve, reject) => {
      let ready = spec.ready === undefined;
      const tail: string[] = [];
      const announce = (address: string) => {
        ready = true;
        resolve({ spec, pid: child.pid, address });
      };
      if (ready) child.once('spawn', () => announce(''));
      for (const stream of [child.stdout, child.stderr]) {
        if (stream === null) continue;
        createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
          this.events.log(`${prefix}${line}`);
          tail.push(line);
          if (tail.length > 5) tail.shift();
          const match = ready ? null : spec.ready?.exec(line);
          if (match) announce(match[1] ?? '');
        });
      }
      child.once('error', (error) => {
        if (!ready) reject(new Error(`${spec.name} could not start: ${error.message}`));
      });
      child.once('exit', (code, signal) => {
        const how = signal === null ? `code ${code}` : signal;
        if (!ready) {
          reject(
            new Error(
              `${spec.name} exited (${how}) before it was ready${tail.length ? `: ${tail.at(-1)}` : ''}`,
            ),
          );
          return;
        }
        if (this.stopping) return;
        this.restart(spec, exits, how);
      });
    });
  }

  private restart(spec: ChildSpec, exits: number[], how: string): void {
    const now = Date.now();
    const recent = [...exits.filter((at) => now - at < RESTART_WINDOW_MS), now];
    if (recent.length > MAX_RESTARTS) {
      this.events.gaveUp(
        `${spec.name} exited unexpectedly (${how}) ${recent.length} times within ${RESTART_WINDOW_MS / 1000} s; stopping the cluster`,
      );
      return;
    }
    this.events.log(
      `cluster: ${spec.name} exited unexpectedly (${how}); restarting it in ${RESTART_DELAY_MS / 1000} s`,
    );
    setTimeout(() => {
      if (this.stopping) return;
      this.launch(spec, recent).then(
        (child) => this.events.restarted(child),
        (error: unknown) =>
          this.restart(spec, recent, String(error instanceof Error ? error.message : error)),
      );
    }, RESTART_DELAY_MS);
  }
}
