# syntax=docker/dockerfile:1
# Quire with every engine on Debian 12: the same scripts/setup.sh as the README quick start installs
# the engines, bubblewrap and the Noto fonts with apt-get, pyHanko into /opt/quire/.venv/pyhanko
# (PyPI), Java and veraPDF's pinned, checksum-verified jars into /opt/quire-verapdf (Maven Central),
# runs npm ci and builds dist/ with the exec helper engines start through (dist/bin/quire-exec, a
# static C program) and the veraPDF worker (dist/bin/verapdf, javac): scripts/build-helpers.sh. One image for every role:
#   docker run … quire            → serve (API + workers, the embedded default)
#   docker run … quire api|worker|migrate|keys …
# See docs/deployment.md.
FROM node:20-bookworm-slim

WORKDIR /opt/quire
COPY . .

# tini runs as PID 1: it forwards SIGTERM to node and reaps the orphaned grandchildren of engines
# (soffice, Chromium helpers), which node as PID 1 would leave as zombies.
# Dev dependencies (typescript, vitest, biome, @types) are needed only to build: dist/ imports
# nothing outside "dependencies", so they are pruned; the web app's tool chain (web/node_modules)
# is needed only to build web/dist, so it goes too.
# Unpinned like setup.sh's packages: bookworm takes only security fixes, which we want.
# hadolint ignore=DL3008
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tini \
 && bash scripts/setup.sh \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf web/node_modules \
 && npm cache clean --force \
 && rm -rf /var/lib/apt/lists/* /root/.cache \
 && groupadd --system --gid 10001 quire \
 && useradd --system --uid 10001 --gid quire --home-dir /var/lib/quire --shell /usr/sbin/nologin quire \
 && install -d -o quire -g quire -m 0700 /var/lib/quire

# Inside a container the network namespace is the boundary, so the server listens on all
# addresses; put TLS termination in front (docs/operations.md). Every role keeps its work dirs
# (tmp/) here; `serve` also keeps SQLite, files and the generated secret here unless told otherwise.
ENV QUIRE_HOST=0.0.0.0 \
    QUIRE_DATA_DIR=/var/lib/quire

# Numeric, so Kubernetes' runAsNonRoot can verify it without a passwd lookup. As a non-root user the
# service builds the LibreOffice/Chromium sandbox through a user namespace (bubblewrap), which the
# container runtime must allow: docs/operations.md#document-engine-sandbox lists the flags.
USER 10001:10001
EXPOSE 8080

ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/cli/main.js"]
CMD ["serve"]
