// Webhook URLs are secrets of a kind (many receivers take a token in the path or the query): the audit
// log shows them only to a reader who may manage webhooks (scope webhooks:write). Others see the
// entry, who made it and when, with the URL replaced.
export const HIDDEN_URL = '(hidden: needs scope webhooks:write)';

interface AuditEntryLike {
  action: string;
  before: unknown;
  after: unknown;
}

/** The entries as a reader with `scopes` may see them: webhook URLs hidden unless it has webhooks:write. */
export function withWebhookUrlsFor<T extends AuditEntryLike>(entries: T[], scopes: readonly string[]): T[] {
  if (scopes.includes('webhooks:write')) return entries;
  return entries.map((e) =>
    e.action.startsWith('webhook-') ? { ...e, before: withoutUrl(e.before), after: withoutUrl(e.after) } : e,
  );
}

function withoutUrl(state: unknown): unknown {
  if (!state || typeof state !== 'object' || !('url' in state)) return state;
  return { ...state, url: HIDDEN_URL };
}
