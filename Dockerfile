# cincy: the graph server with the bundled graph-data, on an embedded SQLite database in /data.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/build-ui.mjs ./scripts/build-ui.mjs
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY migrations ./migrations
COPY graph-data ./graph-data
COPY openapi ./openapi
RUN mkdir -p /data && chown node:node /data
USER node
ENV CINCY_HOST=0.0.0.0 CINCY_PORT=8080 CINCY_DB=/data/cincy.db
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:8080/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/app/bin/cincy.js"]
CMD ["serve"]
