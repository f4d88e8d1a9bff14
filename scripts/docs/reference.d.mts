// The types of reference.mjs.
import type { Command } from 'commander';

export interface ReferenceSetting {
  flag: string;
  env: string;
  kind: 'switch' | 'value';
  description: string;
  default?: string | number | boolean;
}

/** docs/reference/, where the pages are written. */
export const REFERENCE_DIR: string;

/**
 * The reference pages by file name under docs/reference/: cli.md and simulator-cli.md from the programs,
 * settings.md from SETTINGS.
 */
export function referenceTexts(sources: {
  buildProgram: () => Command;
  buildSimulatorProgram: () => Command;
  settings: Record<string, ReferenceSetting>;
}): Record<string, string>;

/** A command line reference page: every command of the program, walked recursively. */
export function cliReference(program: Command): string;

/** docs/reference/settings.md: the settings of `cincy serve`. */
export function settingsReference(settings: Record<string, ReferenceSetting>): string;
