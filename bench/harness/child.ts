/**
 * Entry point of a measurement child process: runs one task with the JSON config in argv and sends
 * the result to the parent over IPC. One process per configuration keeps each measurement's peak
 * RSS its own and stops one run's heap and JIT state from colouring the next.
 */
import { tasks, type TaskName } from './tasks.js';

const [name, config] = process.argv.slice(2);

function send(message: unknown): Promise<void> {
  return new Promise((resolve, reject) =>
    process.send!(message, (error: Error | null) => (error ? reject(error) : resolve())),
  );
}

try {
  if (!name || !Object.hasOwn(tasks, name)) throw new Error(`unknown task ${JSON.stringify(name)}`);
  const task = tasks[name as TaskName] as (config: unknown) => Promise<unknown>;
  await send({ ok: true, result: await task(JSON.parse(config ?? '{}')) });
} catch (error) {
  await send({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
process.disconnect();
