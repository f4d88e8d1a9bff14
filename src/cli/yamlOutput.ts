// YAML on standard output, for the commands that print it (`mirror-plan -o yaml`): imported when such an
// output is asked for, so that no other command loads the YAML writer.
import { stringify } from '#yaml';

export const toYaml = (value: unknown): string => stringify(value);
