// An error of the mock cluster's API, answered as a Kubernetes Status object.

/** What a Status says about the object concerned (name, group, kind) and, for a 422, each field's cause. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: Array<{ reason: string; message: string; field: string }>;
}

/** An API error in the shape of a Kubernetes Status. */
export class KubeError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  status(): object {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details && { details: this.details }),
      code: this.code,
    };
  }
}
