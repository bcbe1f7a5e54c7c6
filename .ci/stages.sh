# Timed CI stages, sourced by .ci/run. Each stage has a budget in .ci/budgets (seconds, measured on
# the 2-core CI machine on a day of its usual speed, docs/robustness.md "CI"). A stage over its
# budget passes with a warning, so that the budget is raised or the stage made faster. The same
# machine has run 2.4 times slower on some days, so a stage is stopped, failing CI with its name,
# only at 2.5 times its budget (a hang, or a stage grown far past its measurement) or when CI's
# 90 minutes are nearly spent (then no stage could land anyway, and the summary says where the
# time went). The budgets add up to at most half of the 90 minutes, which keeps that room real.

ci_total_limit_seconds=5280  # CI's 5400 s, less a margin to stop the stage and print the summary
ci_start_seconds=$(date +%s)
ci_budgets_file=.ci/budgets
ci_stage_names=()
ci_stage_seconds=()

# The budget of stage $1 in seconds, from the budgets file; no budget is an error, not a default.
stage_budget() {
  local budget
  budget=$(awk -v s="$1" '$1 == s { print $2 }' "$ci_budgets_file")
  if ! [[ $budget =~ ^[0-9]+$ ]]; then
    echo "ci: stage '$1' has no budget in $ci_budgets_file (a line '$1 SECONDS')" >&2
    return 2
  fi
  echo "$budget"
}

# The budgets may add up to half of CI's 90 minutes: the other half is the room a slow day needs.
check_budget_total() {
  local total
  total=$(awk '!/^#/ && NF { s += $2 } END { print s + 0 }' "$ci_budgets_file")
  if [ "$total" -gt 2700 ]; then
    echo "ci: the stage budgets in $ci_budgets_file add up to ${total} s, past half of CI's 5400 s:" \
         "make a stage faster" >&2
    return 1
  fi
  echo "ci: stage budgets ${total} s in all, of CI's 5400 s"
}

# run_stage NAME COMMAND [ARG...]: runs the command (one string is run by bash -c) in its own
# process group under a time limit: 2.5 times the stage's budget, or what is left of CI's time.
run_stage() {
  local name=$1
  shift
  local budget limit left start rc=0 elapsed
  budget=$(stage_budget "$name")
  limit=$((budget * 5 / 2))
  left=$((ci_total_limit_seconds - ($(date +%s) - ci_start_seconds)))
  [ "$left" -lt "$limit" ] && limit=$left
  [ "$limit" -lt 1 ] && limit=1
  echo "ci: stage $name: started $(date -u +%H:%M:%S) (budget ${budget} s, stopped at ${limit} s)"
  start=$(date +%s)
  if [ $# -eq 1 ]; then
    timeout --kill-after=30 "$limit" bash -c "set -euo pipefail; $1" || rc=$?
  else
    timeout --kill-after=30 "$limit" "$@" || rc=$?
  fi
  elapsed=$(($(date +%s) - start))
  ci_stage_names+=("$name")
  ci_stage_seconds+=("$elapsed")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "ci: stage $name STOPPED after ${elapsed} s (budget ${budget} s in $ci_budgets_file): it ran to" \
         "2.5 times its budget or to the end of CI's time. Make the stage faster, or measure it and raise" \
         "the budget (docs/robustness.md, \"CI\")." >&2
    print_stage_summary
    exit 1
  fi
  if [ "$rc" -ne 0 ]; then
    echo "ci: stage $name FAILED (exit $rc) after ${elapsed} s" >&2
    print_stage_summary
    exit "$rc"
  fi
  if [ "$elapsed" -gt "$budget" ]; then
    echo "ci: warning: stage $name took ${elapsed} s, over its budget of ${budget} s" >&2
  fi
  echo "ci: stage $name: passed in ${elapsed} s"
}

print_stage_summary() {
  local i total=0
  echo "ci: stage times (s), against their budgets (s):"
  for i in "${!ci_stage_names[@]}"; do
    printf 'ci:   %-16s %6d %6d\n' "${ci_stage_names[$i]}" "${ci_stage_seconds[$i]}" \
      "$(stage_budget "${ci_stage_names[$i]}")"
    total=$((total + ci_stage_seconds[i]))
  done
  printf 'ci:   %-16s %6d\n' total "$total"
}
