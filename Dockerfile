# usersync container image. Multi-stage: build with dev dependencies, ship production ones only.
# Runs as a non-root user and works with a read-only root filesystem (it writes only to the
# paths you give it: mount a writable volume for reports, journals and credentials).
# scripts/check-package.sh does in CI what this image does (pack, production install, run).

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY fixtures/demo ./fixtures/demo
COPY config.example.yaml README.md ./
RUN npm run build && npm pack --pack-destination /tmp && mv /tmp/usersync-*.tgz /tmp/usersync.tgz

FROM node:24-bookworm-slim
ENV NODE_ENV=production NO_COLOR=1
WORKDIR /app
COPY --from=build /tmp/usersync.tgz /tmp/usersync.tgz
RUN npm install --global --omit=dev --no-audit --no-fund /tmp/usersync.tgz \
 && rm /tmp/usersync.tgz && npm cache clean --force
USER node
WORKDIR /work
ENTRYPOINT ["usersync"]
CMD ["--help"]
