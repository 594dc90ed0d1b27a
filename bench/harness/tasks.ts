/**
 * Every measurement that runs in a child process, by name (see child.ts and spawn-task.ts). Every
 * child imports all of these modules, so a task with heavy imports raises every measurement's
 * baseline RSS; a workload that starts its own processes (patch/) runs from the parent instead.
 */
import { http } from '../http/client-vs-fetch.js';
import { pull } from '../http/pull.js';
import { naive } from '../naive/importer.js';
import { postgresRaw, postgresSync } from '../postgres/tasks.js';
import { sqliteRaw } from '../sqlite/raw.js';
import { sqliteSync } from '../sqlite/sync.js';

export const tasks = {
  'sqlite-sync': sqliteSync,
  'sqlite-raw': sqliteRaw,
  http,
  pull,
  naive,
  'postgres-sync': postgresSync,
  'postgres-raw': postgresRaw,
};

export type Tasks = typeof tasks;
export type TaskName = keyof Tasks;
