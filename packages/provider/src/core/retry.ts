/**
 * Recognising the provider's rate limit in an error body. The retry timing (backoff, `Retry-After`,
 * "try again in N seconds") is shared with the service client: packages/internals/src/http.
 */

const RATE_LIMIT_TEXT =
  /rate[ -]?limit|too many requests|\(\s*429\b|(?:\bstatus|\bcode|\bhttp|\berror|status_?code)["'\\ :=]*429\b/i;

/**
 * The provider wraps its upstream rate limit in an HTTP 500 whose message reads
 * "API request failed for account … (429 - Rate limit exceeded): … Please try again in N seconds".
 * A 429 counts only as a status (in brackets, or after "status", "code", "statusCode", "status_code",
 * "HTTP" or "error"): the same message
 * names the account, and an upstream 502 for account 429 is no rate limit (which would pause the
 * whole connection's run).
 */
export function looksLikeRateLimit(text: string): boolean {
  return RATE_LIMIT_TEXT.test(text);
}
