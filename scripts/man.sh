#!/usr/bin/env bash
# Man pages from the --help texts: ucov.1 from `ucov --help`, ucov-CMD.1 from
# `ucov CMD --help`, so the two never say different things.
# Usage: man.sh UCOV OUTDIR VERSION
set -euo pipefail
UCOV=$1 OUT=$2 VERSION=$3
mkdir -p "$OUT"
# roff: backslashes as \e, hyphens as \-, a leading . or ' kept as text.
esc() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\([.']\)/\\\\\&\1/"; }
# page NAME SUMMARY HELPTEXT
page() {
  local name=$1 summary=$2 help=$3 title
  title=$(tr '[:lower:]' '[:upper:]' <<<"$name")
  {
    printf '.TH %s 1 "" "ucov %s" "ucov manual"\n.SH NAME\n%s \\- %s\n' "$title" "$VERSION" \
      "$name" "$(esc <<<"$summary")"
    # the usage lines (up to the first blank line) are the synopsis
    printf '.SH SYNOPSIS\n.nf\n'
    awk 'NR == 1 {sub(/^usage: /, "")} /^$/ {exit} {print}' <<<"$help" | esc
    printf '.fi\n.SH DESCRIPTION\n.nf\n'
    awk 'f {print} /^$/ {f = 1}' <<<"$help" | esc
    printf '.fi\n'
    if [ "$name" = ucov ]; then
      printf '.SH SEE ALSO\n'
      sed -n 's/^  \([a-z-]\+\)  .*/\1/p' <<<"$help" | sed 's/.*/.BR ucov-&(1)/' | sed '$!s/$/ ,/'
    else
      printf '.SH SEE ALSO\n.BR ucov (1)\n'
    fi
  } >"$OUT/$name.1"
}
top=$("$UCOV" --help)
page ucov "coverage for C programs: tracing, profiles, reports" "$top"
sed -n 's/^  \([a-z-]\+\) \+\(.*\)$/\1\t\2/p' <<<"$top" | while IFS=$'\t' read -r cmd what; do
  page "ucov-$cmd" "$what" "$("$UCOV" "$cmd" --help)"
done
