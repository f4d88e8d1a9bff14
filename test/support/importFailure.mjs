// Preloaded into a `cincy` process (NODE_OPTIONS=--import) to make its import of a graph-data tree throw,
// as an unforeseen bug would: CINCY_TEST_THROW_IN=reader throws while releases/amd64/4.1.1.json is read,
// CINCY_TEST_THROW_IN=store throws from the store's import transaction.
import { register } from 'node:module';
import { Store } from '../../dist/store/store.js';
import { TreeReader } from '../../dist/sources/treeReader.js';

// The command line's own files, not its bundle: the classes patched here are the ones it runs.
register('./unbundled.mjs', import.meta.url);

const where = process.env.CINCY_TEST_THROW_IN;
if (where === 'reader') {
  const json = TreeReader.prototype.json;
  TreeReader.prototype.json = function (path) {
    if (path.endsWith('releases/amd64/4.1.1.json')) throw new Error('injected failure in the reader');
    return json.call(this, path);
  };
}
if (where === 'store') {
  Store.prototype.importTree = () => {
    throw new Error('injected failure in the store');
  };
}
