#!/usr/bin/env node
// The simulator's commands (mock-cluster, payload create|push, seed push, agent --follow-mock-clock), built
// into dist/ by the clone's `npm ci`. `cincy` hands these commands here in a clone (bin/cincy.js).
import { runAsProcess } from 'cincy/cli/program';
import { simulatorMain } from '../dist/main.js';

runAsProcess(simulatorMain);
