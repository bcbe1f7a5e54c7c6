#!/bin/sh
# Loads a sample report.html in headless Chromium and fails when the page logs anything to
# the console (a script error, a failed load) or when the rendered DOM lacks the bars.
# usage: chromium_report_test.sh CHROMIUM WRITE_SAMPLE_REPORT [--expect-error]
# With --expect-error the page gets a deliberate script error, and the test passes only if
# that error is detected: proof that the detection works with this Chromium.
set -u
chromium=$1
writer=$2
expect_error=${3:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-report-chromium.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

if [ "$expect_error" = "--expect-error" ]; then
  "$writer" "$work/report.html" --broken || { echo "FAIL: could not write the sample report"; exit 1; }
else
  "$writer" "$work/report.html" || { echo "FAIL: could not write the sample report"; exit 1; }
fi

# --no-sandbox: Chromium refuses to run as root with its sandbox. A private profile folder
# keeps runs independent. Console messages appear on stderr as "...:CONSOLE..." lines.
timeout 50 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run --no-default-browser-check \
  --disable-extensions --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
  --dump-dom "file://$work/report.html" >"$work/dom.html" 2>"$work/stderr.txt"
status=$?

console=$(grep -E ':CONSOLE|Uncaught' "$work/stderr.txt")

if [ "$expect_error" = "--expect-error" ]; then
  if [ -n "$console" ] && echo "$console" | grep -q 'no_such_function'; then
    echo "ok: the deliberate error was detected: $console"
    exit 0
  fi
  echo "FAIL: a page with a script error loaded without a detected console error"
  cat "$work/stderr.txt"
  exit 1
fi

if [ $status -ne 0 ]; then
  echo "FAIL: chromium exited with status $status"
  cat "$work/stderr.txt"
  exit 1
fi
if [ -n "$console" ]; then
  echo "FAIL: console output while loading report.html:"
  echo "$console"
  exit 1
fi
tax_bars=$(grep -o 'class="tax-bar"' "$work/dom.html" | wc -l)
work_bars=$(grep -o 'class="work-bar"' "$work/dom.html" | wc -l)
if [ "$tax_bars" -eq 0 ] || [ "$work_bars" -eq 0 ] || ! grep -q '</svg>' "$work/dom.html"; then
  echo "FAIL: the rendered page lacks the bars (tax: $tax_bars, work: $work_bars)"
  head -c 2000 "$work/dom.html"
  exit 1
fi
echo "ok: report.html loaded with no console output; $tax_bars tax bars and $work_bars work bars in the DOM"
exit 0
