#!/bin/sh
# Loads the sample report.html and compare.html in headless Chromium and fails when a page logs
# anything to the console (a script error, a failed load) or when its rendered DOM lacks what it
# must show: report.html its tax and work bars and one labelled bar per GPU of each sample run;
# compare.html one bar per value of A and of B, on a log axis (B is 90 times slower than A).
# usage: chromium_report_test.sh CHROMIUM WRITE_SAMPLE_REPORT [--expect-error]
# With --expect-error the pages get a deliberate script error, and the test passes only if that
# error is detected in each: proof that the detection works with this Chromium.
set -u
chromium=$1
writer=$2
expect_error=${3:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-report-chromium.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

if [ "$expect_error" = "--expect-error" ]; then
  "$writer" "$work" --broken >"$work/expected.txt" || { echo "FAIL: could not write the sample pages"; exit 1; }
else
  "$writer" "$work" >"$work/expected.txt" || { echo "FAIL: could not write the sample pages"; exit 1; }
fi
expected() { awk -v name="$1" '$1 == name { print $2 }' "$work/expected.txt"; }

# Loads $work/$1.html; leaves the DOM in $work/$1.dom, stderr in $work/$1.err, the console lines
# in $console and Chromium's exit status in $status. --no-sandbox: Chromium refuses to run as
# root with its sandbox. A private profile folder per page keeps loads independent. Console
# messages appear on stderr as "...:CONSOLE..." lines.
load() {
  timeout 50 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run --no-default-browser-check \
    --disable-extensions --user-data-dir="$work/profile-$1" --enable-logging=stderr --v=0 \
    --dump-dom "file://$work/$1.html" >"$work/$1.dom" 2>"$work/$1.err"
  status=$?
  console=$(grep -E ':CONSOLE|Uncaught' "$work/$1.err")
}

fail() {
  echo "FAIL: $1"
  [ -n "${2:-}" ] && head -c 3000 "$2"
  exit 1
}

if [ "$expect_error" = "--expect-error" ]; then
  for page in report compare; do
    load $page
    if [ -z "$console" ] || ! echo "$console" | grep -q 'no_such_function'; then
      cat "$work/$page.err"
      fail "$page.html with a script error loaded without a detected console error"
    fi
    echo "ok: the deliberate error in $page.html was detected: $console"
  done
  exit 0
fi

for page in report compare; do
  load $page
  [ $status -ne 0 ] && fail "chromium exited with status $status on $page.html" "$work/$page.err"
  [ -n "$console" ] && fail "console output while loading $page.html: $console"
  grep -q '</svg>' "$work/$page.dom" || fail "$page.html rendered no chart" "$work/$page.dom"
done

# report.html: the run and GPU bars, taxes and work told apart.
dom=$work/report.dom
tax_bars=$(grep -o 'class="tax-bar"' "$dom" | wc -l)
work_bars=$(grep -o 'class="work-bar"' "$dom" | wc -l)
if [ "$tax_bars" -eq 0 ] || [ "$work_bars" -eq 0 ]; then
  fail "report.html lacks the bars (tax: $tax_bars, work: $work_bars)" "$dom"
fi
# One bar per GPU, each labelled "GPU r" and with its own (run, rank).
want_gpu=$(expected per_gpu_bars)
gpu_bars=$(grep -oE '<g class="gpu-bar" data-run="[^"]*" data-rank="[0-9]+"[^>]*><text[^>]*>GPU [0-9]+</text>' "$dom" |
  sed -E 's/.*data-run="([^"]*)" data-rank="([0-9]+)".*>GPU ([0-9]+)<.*/\1 \2 \3/' | awk '$2 == $3' | sort -u | wc -l)
[ -n "$want_gpu" ] && [ "$want_gpu" -gt 0 ] || fail "the sample has no per-GPU breakdown to check"
[ "$gpu_bars" -eq "$want_gpu" ] || fail "report.html shows $gpu_bars labelled per-GPU bars, expected $want_gpu" "$dom"
grep -q '<li class="legend-group">taxes:</li>' "$dom" || fail "report.html's legend does not name the taxes" "$dom"

# compare.html: a bar per value of each side, a log axis that says so, the differing keys.
dom=$work/compare.dom
want_compare=$(expected compare_bars)
compare_bars=$(grep -o 'class="series-bar"' "$dom" | wc -l)
[ "$compare_bars" -eq "$want_compare" ] || fail "compare.html shows $compare_bars bars, expected $want_compare" "$dom"
grep -q 'data-scale="log"' "$dom" && grep -q '(log scale)' "$dom" || fail "compare.html's axis is not marked log" "$dom"
grep -q 'workload.variant' "$dom" || fail "compare.html does not list the differing keys" "$dom"

echo "ok: report.html and compare.html loaded with no console output; report: $tax_bars tax bars, $work_bars work" \
  "bars, $gpu_bars per-GPU bars; compare: $compare_bars bars"
exit 0
