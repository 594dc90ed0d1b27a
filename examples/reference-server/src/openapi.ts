/** The OpenAPI 3.1 document, generated from the same zod schemas the server validates with. */
import { ErrorBodySchema, TransactionUpdateRequestSchema } from '@finsync/service';
import { z } from 'zod';
import { RenderedTransactionSchema, TransactionCollectionSchema } from './contract.js';

let cached: unknown;

export function buildOpenApiDocument(): unknown {
  if (cached) return cached;
  const schema = (s: z.ZodType, io: 'input' | 'output' = 'output') => {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    return rest;
  };
  const error = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
  });
  const transaction = {
    description: 'The transaction',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Transaction' } } },
  };
  const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const update = {
    summary: 'Update a transaction',
    description:
      'Only the members sent change; `null` or an omitted member leaves a field unchanged (`tag_ids: null` clears the tags, as in the service). ' +
      'Unknown members are ignored. A missing or empty `transaction` member is a 400; an unparseable amount, a bad date, or an unknown ' +
      'category, merchant or tag id is a 422, and nothing changes.',
    parameters: [idParameter],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/TransactionUpdateRequest' } } },
    },
    responses: {
      200: transaction,
      400: error('Malformed JSON, or no `transaction` member'),
      401: error('Missing or invalid API key'),
      403: error('The key has read scope only'),
      404: error('No such transaction for this key'),
      422: error('Validation failed; `errors` lists why'),
    },
  };
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'finsync reference server',
      version: '0.1.0',
      description: 'The personal-finance service API (Sure-style /api/v1) on top of the finsync sync engine.',
    },
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
      schemas: {
        Transaction: schema(RenderedTransactionSchema),
        TransactionCollection: schema(TransactionCollectionSchema),
        TransactionUpdateRequest: schema(TransactionUpdateRequestSchema, 'input'),
        ErrorResponse: schema(ErrorBodySchema, 'input'),
      },
    },
    security: [{ ApiKey: [] }],
    paths: {
      '/api/v1/transactions': {
        get: {
          summary: 'List transactions, newest first',
          parameters: [
            'page',
            'per_page',
            'account_id',
            'start_date',
            'end_date',
            'search',
            'category_id',
          ].map((name) => ({
            name,
            in: 'query',
            required: false,
            schema:
              name === 'page' || name === 'per_page' ? { type: 'integer', minimum: 1 } : { type: 'string' },
          })),
          responses: {
            200: {
              description: 'A page',
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/TransactionCollection' } },
              },
            },
            400: error('A bad filter'),
            401: error('Missing or invalid API key'),
          },
        },
      },
      '/api/v1/transactions/{id}': {
        get: {
          summary: 'Show a transaction',
          parameters: [idParameter],
          responses: { 200: transaction, 401: error('Missing or invalid API key'), 404: error('Not found') },
        },
        patch: update,
        put: { ...update, summary: 'Update a transaction (same as PATCH)' },
      },
    },
  };
  return cached;
}
