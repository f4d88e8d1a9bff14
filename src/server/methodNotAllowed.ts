// A request whose path is served, but not for its method (POST /graph), is a 405 that lists the methods
// the path takes in Allow, as HTTP asks; any other unrouted request stays a 404. The routes are
// collected as they are added; their patterns are matched only for requests nothing routed.
import type { FastifyInstance } from 'fastify';

export interface RouteMethods {
  /** The methods a path is served for, empty when no route has it. */
  allowed(path: string): string[];
}

export function collectRouteMethods(app: FastifyInstance): RouteMethods {
  const routes: Array<{ pattern: RegExp; methods: string[] }> = [];
  app.addHook('onRoute', (route) => {
    // The catch-all routes (CORS preflight on every path) say nothing of what a path serves.
    if (route.url === '*' || route.url === '/*') return;
    const segments = route.url.split('/').map((seg) => {
      if (seg === '*') return '.*';
      if (seg.startsWith(':')) return '[^/]+';
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    });
    const methods = [route.method].flat();
    routes.push({ pattern: new RegExp(`^${segments.join('/')}/?$`), methods });
  });
  return {
    allowed(path) {
      const methods = new Set<string>();
      for (const r of routes) if (r.pattern.test(path)) for (const m of r.methods) methods.add(m);
      return [...methods].sort();
    },
  };
}
