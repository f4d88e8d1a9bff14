# cincy: the graph server on an embedded SQLite database in /data. It imports nothing bundled: give it a
# source (CINCY_GRAPH_DATA, CINCY_RELEASES, CINCY_GRAPH_DATA_IMAGE), or CINCY_DEMO=true for the demo.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Dependencies first, from the lockfile alone: this layer (and the 1.5-minute better-sqlite3 build) is
# reused until package.json or the lockfile change. The prepare script needs the sources, so it runs later.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-ui.mjs scripts/bundle-cli.mjs scripts/bundle-dependencies.mjs scripts/clean-dist.mjs ./scripts/
COPY src ./src
# The product only: the simulated cluster (simulator/, a workspace of the repository) is never in the image.
RUN npm run build:product && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY migrations ./migrations
COPY graph-data ./graph-data
COPY openapi ./openapi
# OpenShift's restricted-v2 runs the container as an arbitrary UID in group 0, on a read-only root: /data,
# owned by group 0 and writable by it, is the only path written. USER is numeric (the image's node user) so
# that runAsNonRoot can be checked where no UID is assigned.
RUN mkdir -p /data && chown 1000:0 /data && chmod 0775 /data
USER 1000
ENV CINCY_HOST=0.0.0.0 CINCY_PORT=8080 CINCY_DB=/data/cincy.db
EXPOSE 8080
VOLUME ["/data"]
# The port the server listens on, as configured (CINCY_PORT), not the default.
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+(process.env.CINCY_PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/app/bin/cincy.js"]
CMD ["serve"]
