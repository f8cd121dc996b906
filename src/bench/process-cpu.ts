import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * A server's CPU time as the kernel counts it (Linux /proc), read from outside the server so
 * that reading costs it nothing: user + system time of the process and of its children (the
 * workers of `serve --workers N`), all threads included.
 */

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, almost always 100). */
const TICKS_PER_SECOND = ticksPerSecond();

function ticksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

interface ProcStat {
  readonly parent: number;
  /** utime + stime, clock ticks. */
  readonly ticks: number;
}

/** Fields after the command name (which may hold spaces and parentheses) of /proc/<pid>/stat. */
function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // man 5 proc: ppid is field 4, utime 14, stime 15 (1-based); fields[0] here is field 3.
  return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** The pids of the live children of `pid`. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    if (readStat(Number(name))?.parent === pid) children.push(Number(name));
  }
  return children;
}

/** CPU time of the process and its children so far: µs (10 ms resolution). */
export function processTreeCpuMicros(pid: number): number {
  let ticks = readStat(pid)?.ticks ?? 0;
  for (const child of childrenOf(pid)) ticks += readStat(child)?.ticks ?? 0;
  return (ticks / TICKS_PER_SECOND) * 1e6;
}

/** Peak resident memory (VmHWM) of the process and each child, bytes. */
export function peakRssBytes(pid: number): number[] {
  return [pid, ...childrenOf(pid)].map((one) => {
    try {
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${one}/status`, 'utf8'));
      return Number(match?.[1] ?? 0) * 1024;
    } catch {
      return 0;
    }
  });
}

/** Resident memory (VmRSS) of the process and its children now, bytes. */
export function processTreeRssBytes(pid: number): number {
  let bytes = 0;
  for (const one of [pid, ...childrenOf(pid)]) {
    try {
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${one}/status`, 'utf8'));
      bytes += Number(match?.[1] ?? 0) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return bytes;
}

/** A thread's time on a CPU and waiting for one (runnable, not running), from /proc/<pid>/task/<tid>/schedstat: ns. */
export interface ThreadSchedule {
  readonly runNs: number;
  readonly waitNs: number;
}

/** The main thread of `pid` (its tid is the pid); undefined off Linux or without schedstats. */
export function mainThreadSchedule(pid: number): ThreadSchedule | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ');
    return { runNs: Number(run), waitNs: Number(wait) };
  } catch {
    return undefined;
  }
}
