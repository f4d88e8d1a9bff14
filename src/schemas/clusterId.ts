// The one shape of a cluster id, as ClusterVersion spec.clusterID holds it and as polls, reports and
// report tokens must carry it: a UUID.
export const CLUSTER_ID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
