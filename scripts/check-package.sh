#!/usr/bin/env bash
# Does what the Dockerfile does, without Docker: pack the package, install the tarball with
# production dependencies only into an empty folder, and run the installed CLI from there:
# --version, the emulator, and a plan against it, from a folder holding the desired state as the
# image's /work does (the README's docker run mounts it there). Run by CI after the build.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
emulator_pid=""
cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

npm pack --silent --pack-destination "$work" >/dev/null
tarball=$(ls "$work"/usersync-*.tgz)
mkdir -p "$work/app" "$work/run"
npm install --prefix "$work/app" --omit=dev --no-audit --no-fund --no-package-lock "$tarball" >/dev/null
bin="$work/app/node_modules/.bin/usersync"

# Nothing from the source tree: no dev dependency may be needed at run time.
if [ -d "$work/app/node_modules/vitest" ] || [ -d "$work/app/node_modules/typescript" ]; then
  echo "check-package: dev dependencies were installed" >&2
  exit 1
fi

version=$("$bin" --version)
echo "check-package: installed $version, running on node $(node --version)"

cd "$work/run"
cp "$work/app/node_modules/usersync/fixtures/demo/users.yaml" users.yaml
"$bin" emulator --port 0 --token package-check-token --seed "$work/app/node_modules/usersync/fixtures/demo/organization.yaml" \
  >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
for _ in $(seq 1 100); do
  [ -s "$work/emulator.out" ] && break
  sleep 0.1
done
url=$(head -n 1 "$work/emulator.out")
case "$url" in http://127.0.0.1:*) ;; *) echo "check-package: the emulator did not start" >&2; cat "$work/emulator.err" >&2; exit 1 ;; esac

set +e
USERSYNC_TOKEN=package-check-token "$bin" plan --base-url "$url" \
  --desired users.yaml --detailed-exitcode --log-level warn >"$work/plan.out"
code=$?
set -e
if [ "$code" -ne 2 ]; then
  echo "check-package: plan exited $code, expected 2 (changes)" >&2
  cat "$work/plan.out" >&2
  exit 1
fi
grep -q "DRY RUN" "$work/plan.out" || { echo "check-package: the plan does not say it is a dry run" >&2; exit 1; }
echo "check-package: OK (plan from the installed package against the emulator exited 2 with changes)"
