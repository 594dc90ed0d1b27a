/**
 * HOOK — item 6 of issue 6, the reference-server PATCH benchmark: NOT MEASURED IN THIS RUN.
 *
 * The reference server belongs to another piece of work, which measures it on its own with
 * bench/patch/run.ts (autocannon against the reference server and a bare Hono handler doing the
 * same SQLite update, each in its own process). To make it part of `npm run bench`: call
 * `benchPatch()` from there in `measureReferencePatch()`, return its figures, and add the target
 * "PATCH ≥ 0.7× the bare handler" in targets.ts. run.ts calls `measureReferencePatch()` and prints
 * its note in the table and the targets.
 */
export interface ReferencePatchResult {
  measured: false;
  note: string;
}

export async function measureReferencePatch(): Promise<ReferencePatchResult> {
  return {
    measured: false,
    note: 'not measured in this run (see bench/reference-patch.ts; measured separately by bench/patch/run.ts)',
  };
}
