# usersync container image. Multi-stage: build with dev dependencies, install production ones in
# a second stage, and ship a runtime stage with node and tini but no npm.
# Runs as a non-root user and works with a read-only root filesystem (it writes only to the
# paths you give it: mount a writable volume for reports and journals).
# CI builds this Dockerfile and runs the image (scripts/check-image.sh, with podman, on a base
# assembled from Debian's packages and the same Node release, passed as NODE_IMAGE).
#
# The base is Node 24, the active LTS (Node 20 reached its end of life on 2026-04-30), pinned by
# digest so a rebuild gets the same bytes. The digest was not pulled here (no registry access
# where it was written): it is the image index that docker-library/repo-info records for
# node:24-bookworm-slim (repos/node/remote/24-bookworm-slim.md) at its commit
# 5997ebe15f92777eea33e0f6b03f784b3aaf1184, the same index as node:24.21.0-bookworm-slim there:
# Node 24.21.0 on Debian bookworm, built 2026-09-09, for linux/amd64, arm64 and ppc64le; other
# public projects pin the same digest for that tag.
# CI tests that Node version: scripts/ci-node24.sh installs the same one, and
# test/deploy/runtime.test.ts holds the two together. Check the digest, and move it forward
# deliberately with that script's version, with `docker buildx imagetools inspect node:24-bookworm-slim`.
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:2fe369e969550cde8e867afc3fe370b260140cab4a23d467074295b42163d553

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
COPY fixtures/demo ./fixtures/demo
COPY config.example.yaml README.md ./
RUN npm run build && npm pack --pack-destination /tmp && mv /tmp/usersync-*.tgz /tmp/usersync.tgz

# The production install, done where npm is: the runtime stage copies its result only.
FROM ${NODE_IMAGE} AS install
WORKDIR /opt/usersync
COPY --from=build /tmp/usersync.tgz /tmp/usersync.tgz
RUN npm install --prefix /opt/usersync --omit=dev --no-audit --no-fund /tmp/usersync.tgz

FROM ${NODE_IMAGE}
# tini as PID 1: it forwards SIGTERM (a pod being stopped) to node, which lets running steps
# finish and writes the report, and it reaps zombies. npm, npx and corepack are removed: the
# image runs usersync only.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
ENV NODE_ENV=production NO_COLOR=1
COPY --from=install /opt/usersync /opt/usersync
RUN ln -s /opt/usersync/node_modules/usersync/dist/cli.js /usr/local/bin/usersync
USER node
WORKDIR /work
ENTRYPOINT ["/usr/bin/tini", "--", "usersync"]
CMD ["--help"]

# OCI image annotations: what this image is and where it came from. CI passes the version, the
# commit, the build time and the repository (scripts/check-image.sh, which also writes the image's
# CycloneDX SBOM beside it); last, so a new commit rebuilds no other layer.
ARG NODE_IMAGE
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="usersync" \
      org.opencontainers.image.description="Syncs users, groups, permissions and data filters from a source of truth into an analytics platform's organizations" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
