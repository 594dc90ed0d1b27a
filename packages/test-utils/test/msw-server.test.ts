import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { PROVIDER_BASE_URL, SERVICE_API_URL, useMswServer } from '../src/index.js';

const server = useMswServer(http.get(`${PROVIDER_BASE_URL}/kept`, () => HttpResponse.json({ kept: true })));

describe('useMswServer', () => {
  it('answers with the handlers it was given and those a test adds', async () => {
    server.use(http.get(`${SERVICE_API_URL}/added`, () => HttpResponse.json({ added: true })));
    expect(await (await fetch(`${PROVIDER_BASE_URL}/kept`)).json()).toEqual({ kept: true });
    expect(await (await fetch(`${SERVICE_API_URL}/added`)).json()).toEqual({ added: true });
  });

  it('forgets what the last test added, keeps what it was given, and fails a request no one answers', async () => {
    expect((await fetch(`${PROVIDER_BASE_URL}/kept`)).status).toBe(200);
    await expect(fetch(`${SERVICE_API_URL}/added`)).rejects.toThrow();
  });
});
