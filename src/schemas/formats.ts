// String formats used by the schemas, registered once for TypeBox (fastify's AJV has its own).
import { FormatRegistry } from '#typebox';

/** An absolute URI: a scheme and something after it. */
export function isUri(text: string): boolean {
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/.test(text)) return false;
  return URL.canParse(text);
}

if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', isUri);
