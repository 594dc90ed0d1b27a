import { describe, expect, it, vi } from 'vitest';
import {
  freshSchemaName,
  postgresSuiteName,
  testPostgresUrl,
  warnWhenPostgresIsMissing,
} from '../src/index.js';

const URL = 'postgres://postgres@127.0.0.1:5432/test';

describe('the PostgreSQL skip rule', () => {
  it('reads FINSYNC_TEST_POSTGRES_URL, and an empty value counts as unset', () => {
    expect(testPostgresUrl({ FINSYNC_TEST_POSTGRES_URL: URL })).toBe(URL);
    expect(testPostgresUrl({ FINSYNC_TEST_POSTGRES_URL: '' })).toBeUndefined();
    expect(testPostgresUrl({ DATABASE_URL: URL })).toBeUndefined();
  });

  it('names a skipped suite with the reason, and a running one as it is', () => {
    expect(postgresSuiteName('PostgresStorage', {})).toBe(
      'PostgresStorage (skipped: FINSYNC_TEST_POSTGRES_URL is not set)',
    );
    expect(postgresSuiteName('PostgresStorage', { FINSYNC_TEST_POSTGRES_URL: URL })).toBe('PostgresStorage');
  });

  it('warns once for a project without a server, and stays quiet with one', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect(warnWhenPostgresIsMissing('postgres', {})).toBe(true);
      expect(warnWhenPostgresIsMissing('postgres', { FINSYNC_TEST_POSTGRES_URL: URL })).toBe(false);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toContain('[postgres] FINSYNC_TEST_POSTGRES_URL is not set');
    } finally {
      warn.mockRestore();
    }
  });

  it('makes a schema name no one else uses, safe to quote into SQL', () => {
    const names = new Set(Array.from({ length: 100 }, () => freshSchemaName('rs_test')));
    expect(names.size).toBe(100);
    for (const name of names) expect(name).toMatch(/^rs_test_[0-9a-f]{12}$/);
    expect(freshSchemaName()).toMatch(/^finsync_test_[0-9a-f]{12}$/);
  });
});
