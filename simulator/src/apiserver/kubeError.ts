// An error of the mock cluster's API: the very error a client of the API gets, so an in-memory client
// passes it on as it is and the HTTP server answers it as a Kubernetes Status.
export { ClusterApiError as KubeError, type StatusDetails } from 'cincy/cluster/api';
