// The answer of GET /api/v1/paths (and `cincy path -o json`), as the tests read it.

export interface Hop {
  from: string;
  to: string;
  channels: string[];
  recommended: boolean;
  risks: Array<{ name: string }>;
  channel: string;
}

export interface Paths {
  from: string;
  to: string;
  arch: string;
  paths: Array<{ hops: Hop[]; risksNotAccepted: string[]; channelSwitches: number }>;
  notes: string[];
  reason?: { code: string; message: string };
}
