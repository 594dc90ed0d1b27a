import { describe, expect, it } from 'vitest';
import { PostgresStorage } from '../src/index.js';

// Checked when the storage is made: no server is needed.
describe('PostgresStorage options', () => {
  it('refuses a connectionString that is not a string, instead of failing on the first query', () => {
    expect(() => new PostgresStorage({ connectionString: 42 as unknown as string })).toThrow(
      'connectionString must be a string, got number',
    );
  });
});
