// client.tags.create() and the fake's POST /api/v1/tags (Sure's TagsController#create).
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  InvalidRequestError,
  PermissionDeniedError,
  ServerError,
  ValidationError,
  type TagCreate,
} from '../src/index.js';
import { TAG_COLORS } from '../src/msw.js';
import { clientFor, raw, seedStore, useFakeService } from './fake-fixture.js';
import { API, READ_KEY, settle } from './helpers.js';

const fake = useFakeService();
let world: ReturnType<typeof seedStore>;

beforeEach(() => {
  world = seedStore();
  fake.use(world.store);
});

describe('tags.create()', () => {
  it('sends {"tag": {name, color}} and returns the tag (201)', async () => {
    const tag = await clientFor().tags.create({ name: 'Holiday', color: '#3b82f6' });
    expect(tag).toMatchObject({ name: 'Holiday', color: '#3b82f6' });
    expect(tag.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(world.store.requests.at(-1)).toMatchObject({
      method: 'POST',
      status: 201,
      body: { tag: { name: 'Holiday', color: '#3b82f6' } },
    });
    expect((await clientFor().tags.list()).map((t) => t.name)).toContain('Holiday');
  });

  it('without color the service stores #e99537', async () => {
    expect((await clientFor().tags.create({ name: 'Plain' })).color).toBe('#e99537');
    expect(world.store.requests.at(-1)?.body).toEqual({ tag: { name: 'Plain' } });
  });

  it('a name the family already has is a ValidationError (the message sits in `error`)', async () => {
    const error = (await settle(clientFor().tags.create({ name: 'Household' }))) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.status).toBe(422);
    expect(error.code).toBe('Name has already been taken');
    expect(error.message).toContain('Name has already been taken');
  });

  it('names are unique exactly: another case is another tag', async () => {
    expect((await clientFor().tags.create({ name: 'household' })).name).toBe('household');
  });

  it('a read key is refused with 403 (the tags controller asks for read_write)', async () => {
    const error = (await settle(
      clientFor({ apiKey: READ_KEY }).tags.create({ name: 'x' }),
    )) as PermissionDeniedError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.serverMessage).toBe("This action requires the 'read_write' scope");
  });

  it.each<[unknown, string, RegExp]>([
    [{}, 'name', /Name is required/],
    [{ name: '  ' }, 'name', /can't be blank/],
    [{ name: 'x', color: 'blue' }, 'color', /six hex digits/],
    [{ name: 'x', color: '#12345' }, 'color', /six hex digits/],
    [{ name: 'x', color: null }, 'color', /random color/],
    [{ name: 'x', classification: 'expense' }, 'classification', /only name and color/],
    [{ name: '\ud800' }, 'name', /valid Unicode/],
    ['Holiday', '', /must be an object/],
  ])('refuses %o before sending', async (body, member, message) => {
    const error = (await settle(clientFor().tags.create(body as TagCreate))) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member ?? '').toBe(member);
    expect(error.message).toMatch(message);
    expect(world.store.requests).toEqual([]);
  });

  it('is retried on 429 only: not after a 500 or a lost connection (a repeat would answer 422)', async () => {
    let calls = 0;
    const answers = [
      () =>
        HttpResponse.json({ error: 'rate_limit_exceeded' }, { status: 429, headers: { 'retry-after': '0' } }),
      () => HttpResponse.json({ id: 't', name: 'Holiday', color: '#e99537' }, { status: 201 }),
    ];
    fake.server.use(http.post(`${API}/tags`, () => answers[calls++]!()));
    expect((await clientFor({ maxRetries: 2 }).tags.create({ name: 'Holiday' })).id).toBe('t');
    expect(calls).toBe(2);

    calls = 0;
    fake.server.use(
      http.post(
        `${API}/tags`,
        () => (calls++, HttpResponse.json({ error: 'Failed to create tag' }, { status: 500 })),
      ),
    );
    expect(await settle(clientFor({ maxRetries: 2 }).tags.create({ name: 'x' }))).toBeInstanceOf(ServerError);
    expect(calls).toBe(1);

    calls = 0;
    fake.server.use(http.post(`${API}/tags`, () => (calls++, HttpResponse.error())));
    expect(await settle(clientFor({ maxRetries: 2 }).tags.create({ name: 'x' }))).toBeInstanceOf(
      ConnectionError,
    );
    expect(calls).toBe(1);
  });
});

describe("the fake's POST /api/v1/tags (Sure's quirks)", () => {
  it('an unwrapped body is wrapped under `tag` (Tag columns only)', async () => {
    const { status, body } = await raw('POST', '/api/v1/tags', { name: 'Loose', color: '#4da568' });
    expect(status).toBe(201);
    expect(body).toMatchObject({ name: 'Loose', color: '#4da568' });
    expect(Object.keys(body)).toEqual(['id', 'name', 'color', 'created_at', 'updated_at']);
  });

  it('a missing, empty or non-object `tag` is a 500 "Failed to create tag"', async () => {
    for (const payload of [{}, { tag: {} }, { tag: 'x' }, { label: 'x' }]) {
      expect(await raw('POST', '/api/v1/tags', payload)).toMatchObject({
        status: 500,
        body: { error: 'Failed to create tag' },
      });
    }
  });

  it('422 bodies carry only `error`, the messages joined', async () => {
    const { status, body } = await raw('POST', '/api/v1/tags', { tag: { name: '', color: 'red' } });
    expect(status).toBe(422);
    expect(body).toEqual({ error: "Name can't be blank, Color is invalid" });
  });

  it('color null picks one of Tag::COLORS; a number name is stored as text', async () => {
    const { body } = await raw('POST', '/api/v1/tags', { tag: { name: 7, color: null } });
    expect(body.name).toBe('7');
    expect(TAG_COLORS).toContain(body.color);
  });
});
