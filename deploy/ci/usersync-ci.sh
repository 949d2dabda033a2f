#!/usr/bin/env bash
# usersync in a pipeline for changes by pull or merge request (docs/ci.md): the GitHub Actions
# workflow (github-actions.yml) and the GitLab CI file (gitlab-ci.yml) call it, so both do the
# same thing, and test/deploy/ci-pipelines.test.ts runs their steps against the emulator.
#
#   usersync-ci.sh plan          validate, then plan: $PLAN_DIR/plan.md (Markdown, for the
#                                job summary and the comment) and plan.json (the saved plan)
#   usersync-ci.sh apply         apply exactly $PLAN_DIR/plan.json: steps whose objects
#                                changed since the plan are reported as stale and not carried out
#                                (exit 3); apply.md is the Markdown report
#   usersync-ci.sh github-run    prints run-id=<id> of the merged pull request's successful plan
#                                run (for actions/download-artifact), via the gh CLI
#   usersync-ci.sh gitlab-fetch  downloads the merged merge request's plan artifact into
#                                $PLAN_DIR, via the GitLab API (curl, jq)
#   usersync-ci.sh gitlab-note   posts plan.md as a note on the merge request (curl, jq)
#
# Environment: USERSYNC_CONFIG (default usersync.yaml), PLAN_DIR (default
# usersync-plan), SYNC_CLI (default: npx --no-install usersync), the token as the config
# says (USERSYNC_TOKEN, from the CI secret store; never printed). Exit codes are usersync's.
set -euo pipefail

config=${USERSYNC_CONFIG:-usersync.yaml}
dir=${PLAN_DIR:-usersync-plan}
read -r -a usersync <<<"${SYNC_CLI:-npx --no-install usersync}"

case "${1:-}" in
  plan)
    mkdir -p "$dir"
    # Nothing is sent before the desired state and the config are valid (exit 4, 5).
    "${usersync[@]}" validate --config "$config"
    code=0
    "${usersync[@]}" plan --config "$config" --format markdown --out "$dir/plan.json" \
      --detailed-exitcode >"$dir/plan.md" || code=$?
    cat "$dir/plan.md"
    # 2: the plan has changes, which is what a pull request is for.
    [ "$code" -eq 0 ] || [ "$code" -eq 2 ] || exit "$code"
    ;;
  apply)
    if ! [ -f "$dir/plan.json" ]; then
      echo "usersync-ci: no saved plan at $dir/plan.json: the merged change's plan job did not run or its artifact expired; run the plan again (docs/ci.md)" >&2
      exit 4
    fi
    code=0
    "${usersync[@]}" apply --config "$config" --plan "$dir/plan.json" --yes --format markdown \
      >"$dir/apply.md" || code=$?
    cat "$dir/apply.md"
    exit "$code"
    ;;
  github-run)
    # The merge commit's pull request, then its last successful pull_request run of this workflow.
    head=$(gh api "repos/$GITHUB_REPOSITORY/commits/$GITHUB_SHA/pulls" --jq '.[0].head.sha')
    run=$(gh run list --workflow "${SYNC_WORKFLOW:-usersync.yml}" --commit "$head" \
      --event pull_request --status success --limit 1 --json databaseId --jq '.[0].databaseId')
    if [ -z "$run" ] || [ "$run" = "null" ]; then
      echo "usersync-ci: no successful plan run for $head (the merged pull request's head): run the plan again (docs/ci.md)" >&2
      exit 4
    fi
    echo "run-id=$run"
    ;;
  gitlab-fetch)
    api="$CI_API_V4_URL/projects/$CI_PROJECT_ID"
    auth="PRIVATE-TOKEN: $GITLAB_API_TOKEN"
    mr=$(curl -fsS --header "$auth" "$api/repository/commits/$CI_COMMIT_SHA/merge_requests" | jq -r '.[0].iid')
    pipeline=$(curl -fsS --header "$auth" "$api/merge_requests/$mr" | jq -r '.head_pipeline.id')
    job=$(curl -fsS --header "$auth" "$api/pipelines/$pipeline/jobs?scope[]=success" |
      jq -r '[.[] | select(.name == "usersync-plan")][0].id')
    curl -fsS --header "$auth" -o "$dir.zip" "$api/jobs/$job/artifacts"
    unzip -oq "$dir.zip" && rm -f "$dir.zip"
    ;;
  gitlab-note)
    curl -fsS --header "PRIVATE-TOKEN: $GITLAB_API_TOKEN" \
      --data-urlencode "body@$dir/plan.md" \
      "$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes" >/dev/null
    ;;
  *)
    echo "usage: usersync-ci.sh plan|apply|github-run|gitlab-fetch|gitlab-note (docs/ci.md)" >&2
    exit 4
    ;;
esac
