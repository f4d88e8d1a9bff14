// What `adm upgrade status --details` can add to the report; here, apart from the report's code, so that
// defining the command's options loads nothing more.
export const DETAILS = ['none', 'all', 'nodes', 'health', 'operators'] as const;
export type Details = (typeof DETAILS)[number];
