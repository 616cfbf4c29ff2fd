# The gateway: `docker build -t nova-gateway .`, then
#   docker run -p 8080:8080 -v nova-data:/data nova-gateway           (embedded star and storage)
#   docker run -p 8080:8080 nova-gateway --stars star-1:7171,star-2:7171   (an external fleet)
# Flags after the image name, or NOVA_* variables, as for `npm start -- --help`.
# The image runs JavaScript compiled by tsgo (`npm run build`, into dist/): no TypeScript loader
# and no type stripping at run time (docs/runtime.md has the measurements behind that choice).

# The same release as the `node` dev dependency in package.json (a test keeps them equal).
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
RUN npm ci --no-audit --no-fund
COPY src ./src
RUN npm run build

FROM node:${NODE_VERSION}-trixie-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:${NODE_VERSION}-trixie-slim
ENV NODE_ENV=production \
    NOVA_HOST=0.0.0.0 \
    NOVA_PORT=8080 \
    NOVA_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY proto ./proto
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
# The image's unprivileged user (uid 1000); nothing it runs needs root.
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness (a load balancer should probe /readyz itself), asked as NOVA_HOST, NOVA_PORT and
# NOVA_TLS_CERT configure the gateway: set those as variables, not flags, for it to see them.
# Use every core with NOVA_WORKERS (or --workers) set to the container's CPUs.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD ["node", "dist/healthcheck.js"]
# The entry without npm in between, so SIGTERM reaches the gateway and it drains; V8's young
# generation capped as `npm start` caps it (docs/operating.md, "Memory").
# test/gateway/docker-entry.test.ts builds dist/ as above and runs exactly this command.
ENTRYPOINT ["node", "--max-semi-space-size=16", "dist/main.js"]
