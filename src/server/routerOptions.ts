// How the server's routes match a path, for the app and for the apps made at a first request (lazyApp.ts),
// so that a path routed by one is routed alike by the other.
export const ROUTER_OPTIONS = { ignoreTrailingSlash: true, maxParamLength: 200 };
