#!/usr/bin/env node
// Generates an invented, deterministic dataset in the layout of the openshift/cincinnati-graph-data
// repository plus this project's release records (releases/<arch>/<version>.json), and with --check
// reads it back with the project's own reader and graph build. The modules are in graph-data/;
// scripts/README.md describes them.
//
//   node scripts/generate-graph-data.mjs [--out DIR] [--size demo|full] [--seed N] [--check]
//   node scripts/generate-graph-data.mjs --check-only DIR [--size demo|full]
//
// Every name, message, URL and digest it writes is made up. The output depends only on the
// arguments: no clock, no environment, seeded random streams.
import process from 'node:process';
import { parseArguments } from './graph-data/args.mjs';
import { checkTree } from './graph-data/check/checkTree.mjs';
import { loadProject } from './graph-data/check/project.mjs';
import { generateDataset } from './graph-data/generate.mjs';
import { summaryLine, writeTree } from './graph-data/writeTree.mjs';

const args = parseArguments(process.argv.slice(2));
// The check needs the compiled project: load it first, so a missing build fails before any writing.
const project = args.check || args.checkOnly ? await loadProject() : undefined;

if (args.checkOnly) {
  process.exit(await checkTree(project, args.checkOnly, args.size));
}
const dataset = generateDataset(args);
const perArch = writeTree(args.outDir, dataset);
process.stdout.write(summaryLine(dataset, perArch, args.out));
if (args.check) process.exit(await checkTree(project, args.outDir, args.size));
