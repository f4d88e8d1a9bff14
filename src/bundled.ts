// What the package ships beside its code: the demo graph-data tree (invented releases), served by
// `serve --demo` wherever it is run from.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUNDLED_GRAPH_DATA = join(dirname(fileURLToPath(import.meta.url)), '..', 'graph-data');
