/** The one HTTP error of the API: thrown anywhere, rendered by `app.onError` as `{ error, message, errors? }`. */
export class ApiProblem extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 503,
    readonly code: string,
    message: string,
    readonly errors?: string[],
  ) {
    super(message);
  }
}

export const notFound = () => new ApiProblem(404, 'not_found', 'Transaction not found');
