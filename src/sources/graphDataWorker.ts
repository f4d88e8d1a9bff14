// Worker thread entry (readInWorker.ts): reads the graph-data tree named by workerData and posts the
// ReadResult back. Everything readGraphData checks is checked here the same way.
import { parentPort, workerData } from 'node:worker_threads';
import { readGraphData } from './graphData.js';

parentPort!.postMessage(await readGraphData(workerData as string));
