// The scopes an admin token may carry: what each route requires, what `cincy token create` accepts,
// and what the OpenAPI document lists. No dependency, so the command line can name them cheaply.
export const SCOPES = [
  'releases:write',
  'channels:write',
  'risks:write',
  'fleet:read',
  'fleet:report',
  'webhooks:write',
  'rollouts:write',
] as const;
export type Scope = (typeof SCOPES)[number];
