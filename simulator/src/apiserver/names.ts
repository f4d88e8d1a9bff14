// The syntax rules of Kubernetes names, label keys and label values, as the API server applies them.
// Each check returns what is wrong (empty when the text is valid), in the API server's words.

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')";
const tooLong = (max: number): string => `must be no more than ${max} characters`;

/** Most kinds' names, and the prefix of a label key. */
export function dns1123Subdomain(text: string): string[] {
  const errs: string[] = [];
  if (text.length > 253) errs.push(tooLong(253));
  if (!SUBDOMAIN.test(text)) errs.push(SUBDOMAIN_MESSAGE);
  return errs;
}

/** Namespace names. */
export function dns1123Label(text: string): string[] {
  const errs: string[] = [];
  if (text.length > 63) errs.push(tooLong(63));
  if (!DNS1123_LABEL.test(text))
    errs.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc')",
    );
  return errs;
}

/** Service names: a DNS label that starts with a letter. */
export function dns1035Label(text: string): string[] {
  const errs: string[] = [];
  if (text.length > 63) errs.push(tooLong(63));
  if (!DNS1035_LABEL.test(text))
    errs.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or 'abc-123')",
    );
  return errs;
}

/** RBAC names (`system:openshift:…`): anything that can be one segment of a URL path. */
export function pathSegment(text: string): string[] {
  if (text === '.' || text === '..') return [`may not be '${text}'`];
  return ['/', '%'].filter((c) => text.includes(c)).map((c) => `may not contain '${c}'`);
}

/** A label or annotation key: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
export function qualifiedName(text: string): string[] {
  const parts = text.split('/');
  if (parts.length > 2)
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]!];
  const errs: string[] = [];
  if (prefix !== undefined) {
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(prefix).map((e) => `prefix part ${e}`));
  }
  if (name === undefined || name === '') return [...errs, 'name part must be non-empty'];
  if (name.length > 63) errs.push(`name part ${tooLong(63)}`);
  if (!NAME_PART.test(name))
    errs.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc')",
    );
  return errs;
}

/** A label value: empty, or up to 63 characters of the name part's alphabet. */
export function labelValue(text: string): string[] {
  const errs: string[] = [];
  if (text.length > 63) errs.push(tooLong(63));
  if (text !== '' && !NAME_PART.test(text))
    errs.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345')",
    );
  return errs;
}
