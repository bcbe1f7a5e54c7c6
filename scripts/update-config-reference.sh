#!/usr/bin/env bash
# Regenerates the key tables of docs/config-reference.md from the schemas the program reads
# configs with. Every section between the lines
#   <!-- BEGIN GENERATED: tessera describe --schema --markdown PART -->
#   <!-- END GENERATED -->
# is replaced by that command's output between two blank lines; the rest of the file is kept as it
# is. The unit test test_config_reference fails, naming the section, when the file is out of date.
#
#   scripts/update-config-reference.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: scripts/update-config-reference.sh BUILD_DIR}
tessera="$build/bin/tessera"
if [ ! -x "$tessera" ]; then
  echo "update-config-reference: $tessera not found: build it first (cmake --build $build --target tessera)" >&2
  exit 1
fi
doc="$(cd "$(dirname "$0")/.." && pwd)/docs/config-reference.md"
begin='<!-- BEGIN GENERATED: tessera describe --schema --markdown '
end='<!-- END GENERATED -->'

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
sections=0
part=''
in_section=0
while IFS= read -r line || [ -n "$line" ]; do
  if [ "$in_section" = 1 ]; then
    [ "$line" = "$end" ] || continue  # the old generated text
    in_section=0
  fi
  printf '%s\n' "$line"
  if [[ $line == "$begin"*' -->' ]]; then
    part=${line#"$begin"}
    part=${part%' -->'}
    printf '\n'
    if ! "$tessera" describe --schema --markdown "$part"; then
      echo "update-config-reference: section '$part': 'tessera describe --schema --markdown $part' failed" >&2
      exit 1
    fi
    printf '\n'
    in_section=1
    sections=$((sections + 1))
  fi
done <"$doc" >"$tmp"
if [ "$in_section" = 1 ]; then
  echo "update-config-reference: section '$part' has no '$end' line" >&2
  exit 1
fi
cat "$tmp" >"$doc"
echo "update-config-reference: $sections sections of docs/config-reference.md regenerated"
