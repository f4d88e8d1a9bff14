// The service tier runs the product from its TypeScript sources, but two parts of it run on worker
// threads, which Node starts from JavaScript files only: the build worker (a store on a file is built off
// the serving thread) and the poll worker (polls recorded off it). So the product is compiled first
// (incremental: seconds when nothing changed), and the tier needs no build of its own.
import { compileProduct } from './compile.js';

export default async function setup(): Promise<void> {
  await compileProduct();
}
