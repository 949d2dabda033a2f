#!/usr/bin/env bash
# usersync in a pipeline for changes by pull or merge request (docs/ci.md): the GitHub Actions
# workflow (github-actions.yml) and the GitLab CI file (gitlab-ci.yml) call it, so both do the
# same thing, and test/deploy/ci-pipelines.test.ts runs their steps against the emulator.
#
#   usersync-ci.sh plan          validate, then plan every organization: $PLAN_DIR/plan.md
#                                (Markdown, for the job summary and the comment: with targets:,
#                                one section per organization) and the saved plans, plan.json
#                                (one organization) or plan.<target>.json (each target)
#   usersync-ci.sh apply         apply exactly the saved plans, each to its organization: steps
#                                whose objects changed since the plan are reported as stale and
#                                not carried out (exit 3); apply.md is the Markdown report. With
#                                SYNC_APPLIER=cronjob, applies nothing: the CronJob does (docs/ci.md)
#   usersync-ci.sh decisions     the open access-review campaign's decisions (docs/audits.md):
#                                with $CAMPAIGN_DIR/campaign.json (with targets:, each
#                                campaign.<target>.json), checks and merges every reviewer's file
#                                under $CAMPAIGN_DIR/decisions/ (with targets: decisions/<target>/;
#                                a page's *.json, a filled CSV named <reviewer email>.csv) with
#                                `campaign decide` (exit 4 on a row unknown, decided twice in
#                                conflict, or not the reviewer's), then `campaign remediate` (GETs
#                                only): the remediation plan's steps and what is pending at the
#                                source, appended to plan.md. No campaign there: nothing to do
#   usersync-ci.sh github-run    prints run-id=<id> of the merged pull request's successful plan
#                                run (for actions/download-artifact), via the gh CLI
#   usersync-ci.sh gitlab-fetch  downloads the merged merge request's plan artifact into
#                                $PLAN_DIR, via the GitLab API (curl, jq)
#   usersync-ci.sh gitlab-note   posts plan.md as a note on the merge request (curl, jq)
#
# Environment: USERSYNC_CONFIG (default usersync.yaml), PLAN_DIR (default usersync-plan),
# CAMPAIGN_DIR (default campaign),
# SYNC_CLI (default: npx --no-install usersync), SYNC_APPLIER (pipeline, the default, or cronjob),
# the tokens as the config says (USERSYNC_TOKEN, or each target's USERSYNC_TOKEN_<NAME>, from the
# CI secret store; never printed; an empty one, a secret that is not set, counts as unset).
# A directory read with CI's own identity: DIRECTORY_OIDC_AUDIENCE (the audience the directory's
# federation expects) makes plan and apply write the CI provider's OIDC token to
# DIRECTORY_OIDC_TOKEN_FILE (default /tmp/usersync-oidc-token) and set AZURE_FEDERATED_TOKEN_FILE
# to it: Entra's workload identity reads it, and a Google credentials config (external_account)
# names that file. GitHub: the job's id-token permission; GitLab: id_tokens: DIRECTORY_ID_TOKEN.
# Exit codes are usersync's: of several organizations, the one that most needs a person (4, 1, 3,
# 5, in that order).
set -euo pipefail

config=${USERSYNC_CONFIG:-usersync.yaml}
dir=${PLAN_DIR:-usersync-plan}
read -r -a usersync <<<"${SYNC_CLI:-npx --no-install usersync}"

# A secret the CI does not have arrives as an empty variable: unset, so it is not a token.
while IFS= read -r name; do
  [ -n "${!name}" ] || unset "$name"
done < <(compgen -e | grep -E '^(USERSYNC_TOKEN(_[A-Z0-9_]+)?|USERSYNC_OKTA_PRIVATE_KEY|DIRECTORY_[A-Z_]+)$' || true)

# The CI provider's OIDC token, for a directory that trusts it (workload identity federation).
ci_identity() {
  [ -n "${DIRECTORY_OIDC_AUDIENCE:-}" ] || return 0
  local file=${DIRECTORY_OIDC_TOKEN_FILE:-/tmp/usersync-oidc-token}
  (umask 077 && : >"$file")
  if [ -n "${DIRECTORY_ID_TOKEN:-}" ]; then
    printf '%s' "$DIRECTORY_ID_TOKEN" >"$file"
  elif [ -n "${ACTIONS_ID_TOKEN_REQUEST_URL:-}" ]; then
    local answer
    answer=$(curl -fsS -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" \
      "$ACTIONS_ID_TOKEN_REQUEST_URL&audience=$DIRECTORY_OIDC_AUDIENCE")
    printf '%s' "$(jq -r .value <<<"$answer")" >"$file"
  else
    echo "usersync-ci: DIRECTORY_OIDC_AUDIENCE is set but this job has no OIDC token: give it the id-token: write permission (GitHub) or id_tokens: DIRECTORY_ID_TOKEN (GitLab) (docs/ci.md)" >&2
    exit 4
  fi
  export AZURE_FEDERATED_TOKEN_FILE="$file"
}

# The names of the config's targets (each item's name: under the top-level targets:), sorted;
# none for a config of one organization.
targets() {
  awk '/^targets:/ { on = 1; next } /^[^ #-]/ { on = 0 }
    on && match($0, /^ *- *(\{ *)?name: *["\x27]?[A-Za-z0-9_-]+/) {
      n = substr($0, RSTART, RLENGTH); sub(/.*name: *["\x27]?/, "", n); print n }' "$config" | sort
}

# Of the exit codes of several organizations, the one that most needs a person.
worst() {
  local code
  for code in 130 4 1 3 5 2; do
    case " $* " in *" $code "*) echo "$code"; return ;; esac
  done
  echo 0
}

# One organization's campaign: $1 the folder, $2 the target (empty: a config of one organization).
# With a target its files are its own, as usersync names them: campaign.<target>.json, and the
# reviewers' files under decisions/<target>/. Its decisions checked and merged, its remediation
# planned; Markdown on stdout.
campaign_decisions() {
  local folder=$1 target=$2 out="$dir/campaign" code=0 f
  local on=() files=() csvs=()
  local campaign="$folder/campaign${target:+.$target}.json" decided="$out/decisions${target:+.$target}.json"
  [ -n "$target" ] && on=(--target "$target")
  for f in "$folder/decisions${target:+/$target}"/*.json; do [ -f "$f" ] && files+=("$f"); done
  for f in "$folder/decisions${target:+/$target}"/*.csv; do [ -f "$f" ] && csvs+=("$f"); done
  mkdir -p "$out"
  rm -f "$decided"
  echo "## Access review decisions${target:+: $target} ($campaign)"
  echo '```'
  if [ "${#files[@]}" -gt 0 ]; then
    "${usersync[@]}" campaign decide --config "$config" --campaign "$campaign" --decisions "$decided" \
      "${files[@]}" 2>&1 || code=$?
  fi
  for f in "${csvs[@]}"; do
    [ "$code" -eq 0 ] || break
    # A spreadsheet's CSV says whose decisions it holds by its name: <reviewer email>.csv.
    "${usersync[@]}" campaign decide --config "$config" --campaign "$campaign" --decisions "$decided" \
      --reviewer "$(basename "$f" .csv)" "$f" 2>&1 || code=$?
  done
  if [ "$code" -eq 0 ] && [ -f "$decided" ]; then
    # With a target, remediate reads and writes that organization's own files (c.json: c.<target>.json).
    "${usersync[@]}" campaign remediate --config "$config" "${on[@]}" --campaign "$folder/campaign.json" \
      --decisions "$out/decisions.json" --out "$out/remediation.json" --source-patch "$out/source.patch" \
      --removals "$out/removals.csv" 2>&1 || code=$?
  fi
  echo '```'
  local plan="$out/remediation${target:+.$target}.json"
  if [ "$code" -eq 0 ] && [ -f "$plan" ]; then
    echo "Remediation plan (apply it with usersync apply --plan once the decisions are merged):"
    jq -r '.steps[] | "- `\(.id)`: \(.reason)\(if .status == "heldBack" then " (held back)" else "" end)"' "$plan"
  fi
  return "$code"
}

case "${1:-}" in
  decisions)
    mkdir -p "$dir"
    campaigns=${CAMPAIGN_DIR:-campaign}
    mapfile -t names < <(targets)
    codes=()
    : >"$dir/campaign.md"
    if [ "${#names[@]}" -eq 0 ]; then
      if [ -f "$campaigns/campaign.json" ]; then
        code=0
        campaign_decisions "$campaigns" "" >>"$dir/campaign.md" || code=$?
        codes+=("$code")
      fi
    else
      for name in "${names[@]}"; do
        [ -f "$campaigns/campaign.$name.json" ] || continue
        code=0
        campaign_decisions "$campaigns" "$name" >>"$dir/campaign.md" || code=$?
        codes+=("$code")
      done
    fi
    if [ "${#codes[@]}" -eq 0 ]; then
      echo "usersync-ci: no open access-review campaign under $campaigns/: no decisions to check"
      exit 0
    fi
    cat "$dir/campaign.md"
    # The summary and the comment carry it under the plan.
    { echo; cat "$dir/campaign.md"; } >>"$dir/plan.md"
    exit "$(worst "${codes[@]}")"
    ;;
  plan)
    mkdir -p "$dir"
    ci_identity
    mapfile -t names < <(targets)
    # Nothing is sent before the desired state and the config are valid (exit 4, 5).
    code=0
    if [ "${#names[@]}" -eq 0 ]; then
      "${usersync[@]}" validate --config "$config"
      "${usersync[@]}" plan --config "$config" --format markdown --out "$dir/plan.json" \
        --detailed-exitcode >"$dir/plan.md" || code=$?
    else
      # Every organization: each target's select checked first, as plan checks it (exit 4, 5).
      "${usersync[@]}" validate --config "$config" --all-targets
      # Then one plan each (plan.<target>.json), one summary with a section each.
      "${usersync[@]}" plan --config "$config" --all-targets --format markdown --out "$dir/plan.json" \
        --detailed-exitcode >"$dir/plan.out" || code=$?
      sed -E 's/^=== target (.*) ===$/# Organization \1/' "$dir/plan.out" >"$dir/plan.md"
      rm -f "$dir/plan.out"
    fi
    cat "$dir/plan.md"
    # 2: the plan has changes, which is what a pull request is for.
    [ "$code" -eq 0 ] || [ "$code" -eq 2 ] || exit "$code"
    ;;
  apply)
    mapfile -t names < <(targets)
    plans=()
    if [ "${#names[@]}" -eq 0 ]; then plans=("$dir/plan.json"); else
      for name in "${names[@]}"; do plans+=("$dir/plan.$name.json"); done
    fi
    for plan in "${plans[@]}"; do
      if ! [ -f "$plan" ]; then
        echo "usersync-ci: no saved plan at $plan: the merged change's plan job did not run or its artifact expired; run the plan again (docs/ci.md)" >&2
        exit 4
      fi
    done
    if [ "${SYNC_APPLIER:-pipeline}" = cronjob ]; then
      # One applier per organization: here the CronJob, which reads the merged desired state.
      echo "usersync-ci: SYNC_APPLIER=cronjob: nothing applied here; the CronJob applies the merged desired state at its next run (docs/ci.md)" | tee "$dir/apply.md"
      exit 0
    fi
    ci_identity
    codes=()
    : >"$dir/apply.md"
    for i in "${!plans[@]}"; do
      code=0
      if [ "${#names[@]}" -eq 0 ]; then
        "${usersync[@]}" apply --config "$config" --plan "${plans[$i]}" --yes --format markdown \
          >>"$dir/apply.md" || code=$?
      else
        # With a target, usersync reads that target's own plan, plan.<target>.json.
        echo "# Organization ${names[$i]}" >>"$dir/apply.md"
        "${usersync[@]}" apply --config "$config" --target "${names[$i]}" --plan "$dir/plan.json" --yes \
          --format markdown >>"$dir/apply.md" || code=$?
        echo "usersync-ci: ${names[$i]}: exit $code" >&2
      fi
      codes+=("$code")
    done
    cat "$dir/apply.md"
    exit "$(worst "${codes[@]}")"
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
    echo "usage: usersync-ci.sh plan|decisions|apply|github-run|gitlab-fetch|gitlab-note (docs/ci.md)" >&2
    exit 4
    ;;
esac
