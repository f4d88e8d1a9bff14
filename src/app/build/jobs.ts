// The jobs the main thread gives the build worker; each is answered with a JobAnswer (jobWorker.ts):
// `build` with the BuildParts, `export` with the GraphDataTarball.
export type WorkerJob = { id?: number; job: 'build'; vouched?: string[]; now: number } | { id?: number; job: 'export' };
