#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fill in the cover letter template that git format-patch wrote for one
# posting (fixes, kstats, kprobes): subject and blurb from
# harness/cover-letters/POSTING.txt (first line is the subject), plus the
# exact base the posting applies to.
# Usage: cover-letter.sh FILE POSTING
. "$(dirname "$0")/common.sh"

f=$1 q=$2
# A port has its own text (ports/BASE/cover-letters/POSTING.txt) or, with
# a note on the base (and ports/BASE/cover-notes/POSTING.txt, if any),
# 6.12's.
src=$SERIES_DIR/cover-letters/$q.txt
own=1
[ -f "$src" ] || { src=$TOP/harness/cover-letters/$q.txt; own=; }
[ -f "$src" ] || die "no cover letter text for the $q posting"
subject=$(head -n1 "$src")
base_desc=$(git -C "$LINUX" log -1 --format='%H %s' base)
blurb=$(mktemp)
trap 'rm -f "$blurb"' EXIT
{
	if [ "$BASE" != 6.12 ] && [ -z "$own" ]; then
		echo "This is the posting ported to $(git -C "$LINUX" log -1 --format=%s base); the"
		echo "figures below were measured on 6.12, the base it was written for."
		echo
		# What the port changes in the 6.12 posting.
		if [ -f "$SERIES_DIR/cover-notes/$q.txt" ]; then
			cat "$SERIES_DIR/cover-notes/$q.txt"
			echo
		fi
	fi
	tail -n +3 "$src"
	echo
	echo "Base: $base_desc"
	case $q in
	fixes) ;;
	kstats) echo "It applies there on its own; the series applies it after the fixes"
		echo "posting (prerequisite-patch-id below)." ;;
	*) echo "with the fixes and kstats postings applied (prerequisite-patch-id"
		echo "below): the benchmark records with kstats, and patch 2 follows the x86"
		echo "fix." ;;
	esac
	if [ "$BASE" = 6.12 ] && [ "$q" = fixes ]; then
		echo "(Debian's linux-source-6.12 tree, committed as one commit with a fixed"
		echo "date and identity.)"
	elif [ "$BASE" = 6.12 ]; then
		echo "(Debian's linux-source-6.12 tree, committed as one commit with a fixed"
		echo "date and identity.  The series builds on v6.12.112 and later: kstats"
		echo "patch 2 uses struct event_command's trigger and print callbacks, which"
		echo "6.12.112 took from mainline.  \`make check\` also applies the series to the"
		echo "newest vanilla 6.12.y that Debian's archive serves and compiles its"
		echo "objects there.)"
	else
		echo "(the release's orig tarball from Debian's archive, $(git -C "$LINUX" log -1 --format=%b base | sed -n 's/^Extracted from \([^ ]*\).*/\1/p'),"
		echo "committed as one commit with a fixed date and identity: base-commit"
		echo "names that commit, whose tree is the release's.)"
	fi
} >"$blurb"
# The template's Date is the time of the export; use the last patch's, so
# that an export with no change rewrites nothing.
date=$(git -C "$LINUX" log -1 --format=%aD series)
python3 - "$f" "$subject" "$blurb" "$date" <<'PY'
import re
import sys
path, subject, date = sys.argv[1], sys.argv[2], sys.argv[4]
blurb = open(sys.argv[3]).read().rstrip("\n")
text = open(path).read()
text = text.replace("*** SUBJECT HERE ***", subject, 1)
text = text.replace("*** BLURB HERE ***", blurb, 1)
text = re.sub(r"^Date: .*$", "Date: " + date, text, count=1, flags=re.M)
open(path, "w").write(text)
PY
