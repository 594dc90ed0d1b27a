/** CPU time read from Linux's /proc: of PostgreSQL's processes, of one process, of the whole machine. */
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of one /proc/PID/stat text, in clock ticks, and the process's name. */
function parseStat(stat: string): { name: string; ticks: number } {
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  // Fields 14 and 15 of /proc/PID/stat (utime, stime), counted from the state field as 3.
  return { name: stat.slice(stat.indexOf('(') + 1, close), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** CPU time (ms) used so far by every process named `postgres` on this machine. */
export function postgresCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (stat.name === 'postgres') ticks += stat.ticks;
    } catch {
      // The process ended while we looked.
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** CPU time (ms) used so far by one process; 0 once it has gone. */
export function processCpuMs(pid: number): number {
  try {
    return (parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU time (ms) the whole machine has spent busy (user, nice, system, irq, softirq; not idle or iowait). */
export function machineBusyMs(): number {
  const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return ((user! + nice! + system! + irq! + softirq!) * 1000) / CLOCK_TICKS_PER_SECOND;
}
