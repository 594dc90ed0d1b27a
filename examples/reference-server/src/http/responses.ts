/** Response schemas for the OpenAPI document, and the error responses routes share. */
import { z } from '@hono/zod-openapi';
import {
  AccountCollectionSchema,
  CategoryCollectionSchema,
  RenderedAccountSchema,
  RenderedCategorySchema,
  RenderedMerchantSchema,
  RenderedTagSchema,
  RenderedTransactionSchema,
  TransactionCollectionSchema,
} from '../contract.js';

export const ErrorSchema = z
  .object({
    error: z.string().openapi({ example: 'not_found' }),
    message: z.string().openapi({ example: 'Transaction not found' }),
    errors: z.array(z.string()).optional().openapi({ description: 'Why a validation failed, one line each' }),
    details: z
      .object({ limit: z.number(), current: z.number(), reset_in_seconds: z.number() })
      .optional()
      .openapi({
        description: 'On a 429, as the service: the hourly limit, the count reached and when it resets',
      }),
    request_id: z
      .string()
      .optional()
      .openapi({ description: 'The X-Request-Id of the request, for the logs' }),
  })
  .openapi('ErrorResponse');

export const TransactionSchema = RenderedTransactionSchema.openapi('Transaction');
export const TransactionPageSchema = TransactionCollectionSchema.openapi('TransactionCollection');

export const DeleteResultSchema = z
  .object({ message: z.string().openapi({ example: 'Transaction deleted successfully' }) })
  .openapi('DeleteResult');

export const AccountSchema = RenderedAccountSchema.openapi('Account');
export const AccountPageSchema = AccountCollectionSchema.extend({ accounts: z.array(AccountSchema) }).openapi(
  'AccountCollection',
);
export const CategorySchema = RenderedCategorySchema.openapi('Category');
export const CategoryPageSchema = CategoryCollectionSchema.extend({
  categories: z.array(CategorySchema),
}).openapi('CategoryCollection');
export const MerchantSchema = RenderedMerchantSchema.openapi('Merchant');
export const TagSchema = RenderedTagSchema.openapi('Tag');

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/**
 * What each error status answers, as the document's example for it: without one, every error of
 * every route showed the schema's own example, a 404.
 */
const ERROR_EXAMPLES: Record<number, { error: string; message: string }> = {
  400: { error: 'bad_request', message: 'Malformed JSON in request body' },
  401: { error: 'unauthorized', message: 'Access token or API key is invalid, expired, or missing' },
  403: { error: 'insufficient_scope', message: "This action requires the 'write' scope" },
  404: { error: 'not_found', message: 'Transaction not found' },
  413: { error: 'payload_too_large', message: 'Payload Too Large' },
  415: { error: 'unsupported_media_type', message: 'Unsupported Media Type' },
  422: { error: 'validation_failed', message: 'Transaction could not be updated' },
  429: { error: 'rate_limit_exceeded', message: 'Rate limit exceeded. Try again in 1834 seconds.' },
  500: { error: 'internal_server_error', message: 'An unexpected error occurred' },
  503: { error: 'service_unavailable', message: 'The database is busy; try again in a moment' },
};

/**
 * What any route that takes a key may answer besides its own, added where the route names none of its
 * own for the status: a query value that is not percent-encoded UTF-8 (400, before any route reads
 * it), a body over the limit on any method (413), an unexpected failure (500).
 */
const ANY_KEYED_ROUTE_ERRORS: Record<number, ReturnType<typeof err>> = {
  400: json(ErrorSchema, 'A query value that is not percent-encoded UTF-8, or a bad parameter'),
  413: json(ErrorSchema, 'A body larger than the limit (1 MiB by default), whatever the method'),
  500: json(ErrorSchema, 'An unexpected error'),
};

/**
 * `route` as the document shows it: an example on each error answer that has none, for its status,
 * and, on a route that takes a key (it answers 401), the errors any such route may give.
 */
export function withErrorExamples<R extends { responses: Record<string | number, unknown> }>(route: R): R {
  const responses: Record<string, unknown> = {};
  const all: Record<string, unknown> =
    '401' in route.responses ? { ...ANY_KEYED_ROUTE_ERRORS, ...route.responses } : route.responses;
  for (const [status, response] of Object.entries(all)) {
    const example = ERROR_EXAMPLES[Number(status)];
    const media = (response as { content?: Record<string, { schema: unknown; example?: unknown }> })
      .content?.['application/json'];
    responses[status] =
      example && media && media.schema === ErrorSchema && media.example === undefined
        ? { ...(response as object), content: { 'application/json': { ...media, example } } }
        : response;
  }
  return { ...route, responses };
}

export const ok = (schema: z.ZodType, description: string) => json(schema, description);
export const err = (description: string) => json(ErrorSchema, description);

/** The answers every authenticated route may give besides its own (the request timeout covers reads too). */
export const AUTH_ERRORS = {
  401: err('Missing or invalid API key'),
  429: err('Rate limit exceeded (when the operator set one); see Retry-After'),
  503: err('The database is busy, or the request took too long; try again after Retry-After'),
} as const;
export const WRITE_ERRORS = {
  ...AUTH_ERRORS,
  403: err('The key has read scope only'),
  413: err('The body is larger than the limit (1 MiB by default)'),
} as const;
/** For the writes that read a JSON body (the others take any body, and ignore it). */
export const JSON_BODY_ERRORS = {
  415: err('A body sent without a JSON Content-Type'),
} as const;
/** For the writes a request timeout rolls back (http/deadline.ts): a 503 means nothing was written. */
export const WRITE_ERRORS_UNDONE_ON_503 = {
  ...WRITE_ERRORS,
  503: err(
    'The database is busy, or the request took too long; try again after Retry-After. Nothing was written',
  ),
} as const;
