// What a subscription request must be: each problem names its field.
import { CHANGE_KINDS } from '../../history/change.js';

export interface SubscriptionRequest {
  url: string;
  kinds: string[];
  secret: string;
  channel?: string;
  arch?: string;
}

export const SECRET_LENGTH = { min: 16, max: 256 };
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The problems of a subscription request, each naming its field; none when it can be stored. */
export function subscriptionProblems(r: SubscriptionRequest): string[] {
  const problems: string[] = [];
  let url: URL | undefined;
  try {
    url = new URL(r.url);
  } catch {
    problems.push(`url: ${JSON.stringify(r.url)} is not a URL`);
  }
  if (url && url.protocol !== 'http:' && url.protocol !== 'https:')
    problems.push(`url: the scheme must be http or https, not ${url.protocol.slice(0, -1)}`);
  if (url && (url.username || url.password)) problems.push('url: must not hold a user or password');
  if (r.url.length > 2048) problems.push('url: longer than 2048 characters');
  if (r.kinds.length === 0) problems.push(`kinds: name at least one of ${CHANGE_KINDS.join(', ')}`);
  for (const k of r.kinds)
    if (!(CHANGE_KINDS as readonly string[]).includes(k))
      problems.push(`kinds: ${JSON.stringify(k)} is not one of ${CHANGE_KINDS.join(', ')}`);
  if (new Set(r.kinds).size !== r.kinds.length) problems.push('kinds: names a kind twice');
  if (r.secret.length < SECRET_LENGTH.min || r.secret.length > SECRET_LENGTH.max)
    problems.push(`secret: must be ${SECRET_LENGTH.min} to ${SECRET_LENGTH.max} characters (has ${r.secret.length})`);
  if (r.channel !== undefined && !NAME.test(r.channel))
    problems.push(`channel: ${JSON.stringify(r.channel)} is not a channel name`);
  if (r.arch !== undefined && !NAME.test(r.arch)) problems.push(`arch: ${JSON.stringify(r.arch)} is not an arch`);
  return problems;
}
