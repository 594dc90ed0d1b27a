import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';

describe.concurrent('--help', () => {
  const commands = ['', 'sync', 'status', 'feed', 'export', 'watch', 'key set', 'key remove', 'key status'];
  it.each(commands.map((command) => ({ command, title: command || '(no command)' })))(
    'finsync $title --help',
    async ({ command }) => {
      const result = await runCli(command ? [...command.split(' '), '--help'] : ['--help'], {
        cwd: tmpdir(),
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(command ? `Usage: finsync ${command}` : 'Usage: finsync');
      expect(result.stdout).toContain('Exit codes:');
      expect(result.stdout).toContain('LUNCHFLOW_API_KEY');
      expect(result.stdout).toMatch(/3 {2}the provider refused the key/);
    },
  );

  it('finsync --version', async () => {
    const result = await runCli(['--version'], { cwd: tmpdir() });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
