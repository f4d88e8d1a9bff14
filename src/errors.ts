// One family of errors, each with its HTTP status and the `{kind, value}` body clients read.
export type ErrorKind =
  | 'missing_params'
  | 'invalid_params'
  | 'invalid_content_type'
  | 'does_not_exist'
  | 'service_unavailable'
  | 'invalid_request'
  | 'request_timeout'
  | 'unauthorized'
  | 'forbidden'
  | 'conflict'
  | 'promotion_refused'
  | 'rate_limited'
  | 'invalid_signature'
  | 'insufficient_storage'
  | 'internal_error';

const STATUS: Record<ErrorKind, number> = {
  missing_params: 400,
  invalid_params: 400,
  invalid_content_type: 406,
  does_not_exist: 404,
  service_unavailable: 503,
  invalid_request: 400,
  request_timeout: 408,
  unauthorized: 401,
  forbidden: 403,
  conflict: 409,
  promotion_refused: 409,
  rate_limited: 429,
  invalid_signature: 400,
  insufficient_storage: 507,
  internal_error: 500,
};

export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly kind: ErrorKind,
    readonly value: string,
    statusCode?: number,
  ) {
    super(value);
    this.statusCode = statusCode ?? STATUS[kind];
  }

  body(): { kind: ErrorKind; value: string } {
    return { kind: this.kind, value: this.value };
  }
}
