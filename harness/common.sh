# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the harness scripts. Sourced, never run.

set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
OUT=${OUT:-$TOP/out}
case "$OUT" in /*) ;; *) OUT=$TOP/$OUT ;; esac
# The base repository: one commit ("base" tag) holding the 6.12 tree; the
# developer's series lives on its "series" branch, checked out in $LINUX.
LINUX=$OUT/linux
JOBS=${JOBS:-$(($(nproc) + 1))}
DEBIAN_TARBALL=${DEBIAN_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
T0=${T0:-$(date +%s.%N)}
export T0 OUT TOP

# One progress line with the elapsed time since the first script started.
log() {
	local now
	now=$(date +%s.%N)
	printf '[%7.1fs] %s\n' "$(echo "$now - $T0" | bc)" "$*" >&2
}

# rec STATUS NAME [DETAIL]: one result line (PASS, FAIL or SKIP) in the
# results file $RES when it is set, and a progress line.
rec() {
	if [ -n "${RES:-}" ]; then
		echo "$1 $2${3:+: $3}" >>"$RES"
	fi
	log "$1 $2${3:+ ($3)}"
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# Git with a fixed identity for the commits the harness makes itself.
hgit() {
	GIT_AUTHOR_NAME="kseries harness" GIT_AUTHOR_EMAIL="harness@localhost" \
	GIT_COMMITTER_NAME="kseries harness" GIT_COMMITTER_EMAIL="harness@localhost" \
	GIT_AUTHOR_DATE="2024-11-17 00:00:00 +0000" \
	GIT_COMMITTER_DATE="2024-11-17 00:00:00 +0000" \
		git "$@"
}

# Patches named by the series file, in order, as absolute paths.
series_patches() {
	local p
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		echo "$TOP/patches/$p"
	done <"$TOP/series"
}

# stage_selftests SRC DEST NAME...: the scripts and data files of the
# series' kselftest folders NAME, laid out as kselftest's "make install"
# lays them out (DEST/NAME/, and DEST/kselftest/ktap_helpers.sh, which
# they source).
stage_selftests() {
	local sel=$1/tools/testing/selftests dest=$2 name f
	shift 2
	install -D -m 0644 "$sel/kselftest/ktap_helpers.sh" \
		"$dest/kselftest/ktap_helpers.sh"
	for name in "$@"; do
		mkdir -p "$dest/$name"
		for f in "$sel/$name"/*.sh "$sel/$name"/*.awk; do
			[ -f "$f" ] && install -m 0755 "$f" "$dest/$name/"
		done
	done
}

# Use ccache when it is installed; CCACHE_BASEDIR makes the several build
# directories share objects.
kmake_cc() {
	if command -v ccache >/dev/null 2>&1; then
		echo "CC=ccache gcc"
	fi
}
export CCACHE_BASEDIR=$OUT
export CCACHE_NOHASHDIR=1
