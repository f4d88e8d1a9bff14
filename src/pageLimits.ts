// The page sizes of the admin API's lists, shared by the server and its command-line client.
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;
