// An "update insight" of `oc adm upgrade status`: something about the update worth an administrator's
// attention, with when it started, how bad it is and what it affects.

export const LEVELS = ['Info', 'Warning', 'Error', 'Critical'] as const;
export type Level = (typeof LEVELS)[number];

export interface Insight {
  /** When the condition began; undefined when a client cannot know. */
  startedAt?: number;
  level: Level;
  impact: string;
  summary: string;
  description: string;
  reference?: string;
}
