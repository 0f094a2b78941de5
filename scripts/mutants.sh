#!/usr/bin/env bash
# Breaks the code on purpose, one mutation at a time, and checks that the tests catch each one:
# a mutation is "caught" when at least one test fails through its own assertion (a panic in a test),
# "MISSED" when the tests still pass, "BROKEN" when the mutated code does not build or the edit no
# longer applies (the code moved: update the mutation).
#
#   scripts/mutants.sh            every mutation
#   scripts/mutants.sh kill pdeath  only those whose name contains one of the words
#
# Each mutation is a one-line sed on one source file, applied in place and undone right after its
# tests ran (and on Ctrl-C). A file with uncommitted changes is refused, so nothing of yours is lost.
# Logs: target/mutants/<name>.log. Takes a few minutes per mutation (an incremental build each).
set -uo pipefail
cd "$(dirname "$0")/.."

# name | file | sed expression (one line, must change the file) | test filters (tests/it)
MUTANTS=(
  "editor-error-allows|src/permissions/reply.rs|s/Err(e) => return Decision::plain(deny(failed(&tool, &e))),/Err(_e) => ALLOW_ONCE.to_owned(),/|standin::permissions::stdio"
  "ask-answers-dropped|src/permissions/ask_user.rs|s/input\[\"answers\"\] = Value::Object(map);/let _ = map;/|standin::permissions::ask_user_question"
  "kill-noop|src/claude/process.rs|s/^        group::kill_group(self.pid as i32);/        let _ = self.pid;/|standin::process_hygiene standin::sessions standin::session_close"
  "auto-mcp-switch-off|src/permissions/fallback/mod.rs|s/PermissionTransport::Auto => Self::Watched {/PermissionTransport::Auto => Self::Stdio, #[allow(unreachable_patterns)] PermissionTransport::Auto => Self::Watched {/|standin::permissions::fallback"
  "permissions-reject-allows|src/permissions/reply.rs|s/Decision::plain(deny(format!(\"The user rejected this {tool} call.\")))/Decision::plain(PermissionDecision::Allow { updated_input: allowed_input(req), updated_permissions: Vec::new() })/|standin::permissions::stdio standin::permissions::options"
  "cancel-keeps-ask-pending|src/session/actor.rs|s/deliver(h.answer_permission(&request_id, decision));/let _ = (h, decision);/|standin::cancel"
  "hygiene-no-pdeathsig|src/claude/process.rs|s/libc::PR_SET_PDEATHSIG, libc::SIGKILL/libc::PR_SET_PDEATHSIG, 0/|standin::process_hygiene"
  "hygiene-signal-exit-0|src/serve.rs|s/128 + if signal == \"SIGINT\" { 2 } else { 15 }/0/|standin::process_hygiene"
  "fallback-config-0644|src/claude/wire/mcp_config/file.rs|s/\.mode(0o600)/.mode(0o644)/|standin::permissions::fallback standin::session_options"
  "sessions-old-claude-kept|src/session/mod.rs|s/^        if let Some(previous) = previous {/        if let Some(previous) = previous.map(std::mem::forget).and(None::<SessionHandle>) {/|standin::sessions standin::session_close"
)

mkdir -p target/mutants
backup_dir=$(mktemp -d)
current_file=""
restore() {
  if [[ -n "$current_file" ]]; then
    cp "$backup_dir/original" "$current_file"
    current_file=""
  fi
}
trap 'restore; rm -rf "$backup_dir"' EXIT
trap 'restore; exit 130' INT TERM

wanted() {
  [[ $# -le 1 ]] && return 0
  local name=$1; shift
  for word in "$@"; do [[ "$name" == *"$word"* ]] && return 0; done
  return 1
}

missed=0
printf '%-28s %-8s %s\n' mutation verdict "failing tests"
for entry in "${MUTANTS[@]}"; do
  IFS='|' read -r name file expr filters <<<"$entry"
  wanted "$name" "$@" || continue
  log="target/mutants/$name.log"
  if ! git diff --quiet -- "$file"; then
    echo "refusing: $file has uncommitted changes" >&2
    exit 2
  fi
  cp "$file" "$backup_dir/original"
  current_file=$file
  sed -i -e "$expr" "$file"
  if cmp -s "$file" "$backup_dir/original"; then
    restore
    printf '%-28s %-8s %s\n' "$name" BROKEN "the edit no longer applies to $file"
    missed=$((missed + 1))
    continue
  fi
  # shellcheck disable=SC2086 # filters are several words on purpose
  cargo test --test it -- $filters >"$log" 2>&1
  status=$?
  restore
  failing=$(grep -E '^test .* FAILED$' "$log" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' | tr '\n' ' ')
  if [[ $status -ne 0 && -n "$failing" ]] && grep -q 'panicked at' "$log"; then
    printf '%-28s %-8s %s\n' "$name" caught "$failing"
  elif [[ $status -ne 0 ]]; then
    printf '%-28s %-8s %s\n' "$name" BROKEN "no test ran to a failure (build error?), see $log"
    missed=$((missed + 1))
  else
    printf '%-28s %-8s %s\n' "$name" MISSED "every test passed, see $log"
    missed=$((missed + 1))
  fi
done
exit $((missed > 0))
