// A module resolve hook (registered by importFailure.mjs): a `cincy` process loads its command line from
// dist/cli/ instead of the bundle bin/cincy.js runs (dist/bundle/, scripts/bundle-cli.mjs), whose modules are
// copies of dist/'s: what a test patches in dist/ is then what the process runs.
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  return resolved.url.includes('/dist/bundle/')
    ? { ...resolved, url: resolved.url.replace('/dist/bundle/', '/dist/cli/') }
    : resolved;
}
