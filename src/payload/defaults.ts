// The payload store's default folder, which the command line shows in its help: kept apart from the code
// that uses it, so that defining the commands loads none of it.

/** Where payloads are kept unless --payload-store (or CINCY_PAYLOAD_STORE) says otherwise. */
export const DEFAULT_PAYLOAD_STORE = 'data/payloads';
