// The YAML of channel and blocked-edge files, written by hand: the files use a tiny subset (block
// mappings and lists, single-quoted scalars, literal blocks) and their exact bytes are committed.

/** Reserved words and number-like text that a YAML reader would not take as a plain string. */
const NOT_PLAIN = [
  /^(true|false|yes|no|on|off|y|n|null|~)$/i,
  /^[-+]?(\d[\d_]*)?(\.\d*)?([eE][-+]?\d+)?$/,
  /^[-+]?\.(inf|nan)$/i,
  /^0[xo]/i,
];

/** A scalar, plain when a YAML reader takes it back as the same string, else single-quoted. */
function yamlScalar(value) {
  const s = String(value);
  const plain =
    s !== '' &&
    /^[A-Za-z0-9.^()\\/$_+-]/.test(s) &&
    !/^[-?:](\s|$)/.test(s) &&
    !/: |:$| #|^\s|\s$|[\n\t"'`{}]/.test(s) &&
    !NOT_PLAIN.some((re) => re.test(s));
  return plain ? s : `'${s.replace(/'/g, "''")}'`;
}

const yamlList = (key, list) => `${key}:\n${list.map((v) => `- ${yamlScalar(v)}\n`).join('')}`;

export function channelYaml(channel) {
  let out = '';
  if (channel.feeder) {
    out += 'feeder:\n';
    for (const k of Object.keys(channel.feeder).sort()) out += `  ${k}: ${yamlScalar(channel.feeder[k])}\n`;
  }
  out += `name: ${yamlScalar(channel.name)}\n`;
  if (channel.tombstones) out += yamlList('tombstones', channel.tombstones);
  out += channel.versions.length ? yamlList('versions', channel.versions) : 'versions: []\n';
  return out;
}

export function blockedEdgeYaml(b) {
  let out = `to: ${yamlScalar(b.to)}\nfrom: ${yamlScalar(b.from)}\n`;
  if (b.fixedIn) out += `fixedIn: ${yamlScalar(b.fixedIn)}\n`;
  if (!b.risk) return out;
  out += `url: ${yamlScalar(b.risk.url)}\nname: ${yamlScalar(b.risk.name)}\n`;
  // Long messages as a literal block; they are single lines, so it reads as the same string.
  out += b.risk.message.length > 120 ? `message: |-\n  ${b.risk.message}\n` : `message: ${yamlScalar(b.risk.message)}\n`;
  out += 'matchingRules:\n';
  for (const rule of b.risk.rules) {
    out += `- type: ${rule.type}\n`;
    if (rule.type !== 'PromQL') continue;
    out += '  promql:\n    promql: |\n';
    out += rule.promql.replace(/\n$/, '').split('\n').map((line) => `      ${line}\n`).join('');
  }
  return out;
}
