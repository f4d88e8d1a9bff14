// The payload defaults the command line shows in its help: the payload store's folder and the
// architectures a release image is made for. Kept apart from the code that uses them, so that defining
// the commands loads none of it.

/** Where payloads are kept unless --payload-store (or CINCY_PAYLOAD_STORE) says otherwise. */
export const DEFAULT_PAYLOAD_STORE = 'data/payloads';

/** The architectures of the images of a release (Go names), in the order a multi release lists them. */
export const IMAGE_ARCHES = ['amd64', 'arm64', 'ppc64le', 's390x'] as const;
