#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The man pages render without a single groff warning, and they document
# every command and option that the programs' own --help lists.
# Usage: check-man-pages.sh MANDIR RESOURCECTL RESOURCE-CONTROLD
set -uo pipefail
mandir=$1 resourcectl=$2 daemon=$3
pages=("$mandir/resourcectl.1" "$mandir/resource-controld.8" "$mandir/resource-control.conf.5")
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

if ! command -v groff >/dev/null; then
  not_ok "groff is not installed (Debian: groff-base; tools/install-deps.sh installs it)"
  echo "1..$n"; exit 1
fi

export LC_ALL=C.UTF-8
for page in "${pages[@]}"; do
  for device in utf8 ps; do
    out=$(groff -man -T"$device" -ww -z "$page" 2>&1); status=$?
    if [ "$status" = 0 ] && [ -z "$out" ]; then
      ok "$(basename "$page") renders with groff -T$device -ww without warnings"
    else
      not_ok "$(basename "$page") with groff -T$device -ww (exit $status):"
      printf '%s\n' "$out" | sed 's/^/#   /'
    fi
  done
done

# Plain text as man shows it: entry tags (.TP) are indented by 7 columns.
text() { groff -man -Tascii -P-cbou "$1" 2>/dev/null; }
cli_text=$(text "$mandir/resourcectl.1")
daemon_text=$(text "$mandir/resource-controld.8")

# Long options from a --help text's "Application Options:" and "Help Options:".
long_options() { grep -oE '^  +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'; }

# Commands: the leading lower-case words of each line under "Commands:".
commands=$("$resourcectl" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \(\([a-z-]\+ \?\)\+\).*/\1/p' |
           sed -E 's/ +$//; s/ +[A-Z].*//')
[ -n "$commands" ] || not_ok "resourcectl --help lists no commands"
while IFS= read -r cmd; do
  [ -n "$cmd" ] || continue
  if grep -qE "^ {7}$cmd( |\$)" <<<"$cli_text"; then
    ok "resourcectl.1 documents the command \"$cmd\""
  else
    not_ok "resourcectl.1 has no entry for the command \"$cmd\" (resourcectl --help lists it)"
  fi
  # shellcheck disable=SC2086
  for opt in $("$resourcectl" $cmd --help | long_options | grep -vx -- --help); do
    if grep -qE -- "(^|[ ,\[])$opt([ =,]|\]|\$)" <<<"$cli_text"; then
      ok "resourcectl.1 documents $cmd $opt"
    else
      not_ok "resourcectl.1 does not mention $opt of \"$cmd\""
    fi
  done
done <<<"$commands"
for opt in $("$resourcectl" --help | long_options); do
  if grep -qE -- "^ {7}(-[a-z], )?$opt( |,|\$)" <<<"$cli_text"; then ok "resourcectl.1 documents $opt"
  else not_ok "resourcectl.1 has no entry for $opt"; fi
done
for opt in $("$daemon" --help | long_options); do
  if grep -qE -- "^ {7}(-[a-z], )?$opt( |,|\$)" <<<"$daemon_text"; then ok "resource-controld.8 documents $opt"
  else not_ok "resource-controld.8 has no entry for $opt"; fi
done

echo "1..$n"
[ "$failed" = 0 ]
