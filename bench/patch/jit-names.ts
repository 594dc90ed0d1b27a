/**
 * Names for the JavaScript in a callgrind profile. valgrind knows V8's compiled JavaScript only by
 * address (`0x000000000d1d9cc0`); run under `node --perf-basic-prof`, V8 writes each function's
 * address range and name to `/tmp/perf-<pid>.map`, and the addresses are looked up there. V8 may
 * move or free code after writing an entry, so a name is where that address was at some point: read
 * the list as a guide to which function to look at, and confirm with a before-and-after count.
 */
import { readFileSync } from 'node:fs';

export interface JitFunction {
  /** As V8 names it: `JS:*name file:line:column` (`*` optimized, `^` baseline), `RegExp:…`, `Builtin:…`. */
  name: string;
  /** callgrind's inclusive count of the busiest address in the function. */
  inclusive: number;
}

/** Where V8 writes the map of a process started with `--perf-basic-prof`. */
export function perfMapPath(pid: number): string {
  return `/tmp/perf-${pid}.map`;
}

/** The map's entries as sorted starts, ends and names. */
function readPerfMap(path: string): { starts: number[]; ends: number[]; names: string[] } {
  const entries: Array<[start: number, end: number, name: string]> = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (!match) continue;
    const start = Number.parseInt(match[1]!, 16);
    entries.push([start, start + Number.parseInt(match[2]!, 16), match[3]!]);
  }
  entries.sort((a, b) => a[0] - b[0]);
  return {
    starts: entries.map((entry) => entry[0]),
    ends: entries.map((entry) => entry[1]),
    names: entries.map((entry) => entry[2]),
  };
}

/**
 * The JavaScript functions (and compiled regular expressions) among `callgrind_annotate --inclusive=yes`'s
 * functions (as instructions.ts reads its lines: `0x…` for an address), named from the map at `mapPath`,
 * heaviest first. An address the map does not hold is left out.
 */
export function namedJitFunctions(
  functions: Iterable<{ count: number; name: string } | undefined>,
  mapPath: string,
): JitFunction[] {
  const map = readPerfMap(mapPath);
  const byName = new Map<string, number>();
  for (const fn of functions) {
    const match = fn && /^0x([0-9a-f]+)/.exec(fn.name);
    if (!match) continue;
    const address = Number.parseInt(match[1]!, 16);
    // The last entry starting at or before the address, if the address falls inside it.
    let low = 0;
    let high = map.starts.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (map.starts[middle]! <= address) low = middle + 1;
      else high = middle - 1;
    }
    if (high < 0 || address >= map.ends[high]!) continue;
    const name = map.names[high]!;
    // callgrind may split one function into several addresses: the largest count is the function's.
    byName.set(name, Math.max(byName.get(name) ?? 0, fn.count));
  }
  return [...byName]
    .map(([name, inclusive]) => ({ name, inclusive }))
    .sort((a, b) => b.inclusive - a.inclusive);
}
