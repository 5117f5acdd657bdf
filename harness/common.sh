# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the harness scripts. Sourced, never run.

set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# OUT_ROOT: where everything is built; each base has its own OUT in it.
OUT_ROOT=${OUT_ROOT:-${OUT:-$TOP/out}}
case "$OUT_ROOT" in /*) ;; *) OUT_ROOT=$TOP/$OUT_ROOT ;; esac
# BASE: the kernel the series is applied to.  6.12 (the default) is the
# series at the top of the repository (series, patches/, the overlay);
# the ports to other bases live in ports/BASE/ (series, patches/,
# base.conf: the release and its orig tarball).
BASE=${BASE:-6.12}
RELEASE=6.12
if [ "$BASE" = 6.12 ]; then
	SERIES_DIR=$TOP
	OUT=$OUT_ROOT
else
	SERIES_DIR=$TOP/ports/$BASE
	OUT=$OUT_ROOT/base-$BASE
	if [ ! -f "$SERIES_DIR/base.conf" ]; then
		printf 'error: BASE=%s: no ports/%s/base.conf (bases: 6.12 %s)\n' "$BASE" \
			"$BASE" "$(cd "$TOP/ports" && ls -d -- */ | tr -d / | tr '\n' ' ')" >&2
		exit 1
	fi
	# shellcheck source=/dev/null
	RELEASE=$(. "$SERIES_DIR/base.conf" && echo "$VERSION")
fi
# The distribution-like fragment, and a port's changes to it where its
# release lacks an option (7.2: x86 offers no PREEMPT_VOLUNTARY).
DISTRO_FRAGS=("$TOP/harness/configs/distro.config")
if [ "$BASE" != 6.12 ] && [ -f "$SERIES_DIR/distro.config" ]; then
	DISTRO_FRAGS+=("$SERIES_DIR/distro.config")
fi
# The base repository: one commit ("base" tag) holding the base tree; the
# developer's series lives on its "series" branch, checked out in $LINUX.
LINUX=$OUT/linux
JOBS=${JOBS:-$(($(nproc) + 1))}
DEBIAN_TARBALL=${DEBIAN_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
T0=${T0:-$(date +%s.%N)}
export T0 OUT OUT_ROOT TOP BASE

# One progress line with the elapsed time since the first script started.
log() {
	local now
	now=$(date +%s.%N)
	printf '[%7.1fs] %s\n' "$(echo "$now - $T0" | bc)" "$*" >&2
}

# rec STATUS NAME [DETAIL]: one result line (PASS, FAIL or SKIP) in the
# results file $RES when it is set, and a progress line.  RPFX prefixes
# the name (the base, when make check checks a port beside 6.12).
rec() {
	if [ -n "${RES:-}" ]; then
		echo "$1 ${RPFX:-}$2${3:+: $3}" >>"$RES"
	fi
	log "$1 ${RPFX:-}$2${3:+ ($3)}"
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

# The series is three postings, each a folder of patches/ with its own
# cover letter, applied in this order: the fixes (each for stable, on its
# own), kstats (to the tracing maintainers) and the kprobes scalability
# work (to the kprobes maintainers; its benchmark records with kstats).
POSTINGS="fixes kstats kprobes"

# patch_label PATH: a patch as the results name it, POSTING/FILE.
patch_label() {
	echo "$(basename "$(dirname "$1")")/$(basename "$1")"
}

# posting_counts: "POSTING COUNT" per posting, from the series file.
posting_counts() {
	local q
	for q in $POSTINGS; do
		echo "$q $(grep -c "^$q/" "$SERIES_DIR/series" || true)"
	done
}

# Patches named by the series file, in order, as absolute paths.
series_patches() {
	local p
	while read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		echo "$SERIES_DIR/patches/$p"
	done <"$SERIES_DIR/series"
}

# port_list [DEFAULT]: the ports to check, newest first: $CHECK_PORTS,
# else DEFAULT, else every directory of ports/; "none" is none.
port_list() {
	local l=${CHECK_PORTS:-${1:-$(cd "$TOP/ports" && ls -d -- */ | tr -d / | sort -rV)}}
	[ "$l" = none ] || echo "$l"
}

# kernel_c_files: the C files of the kernel (arch/, kernel/, lib/, mm/)
# among the paths on stdin, one per line.
kernel_c_files() {
	grep -E '^(arch|kernel|lib|mm)/.*\.c$' || true
}

# apt_orig PACKAGE=VERSION DIR: fetch the source package's orig tarball into
# DIR with apt-get source --download-only and print its path if it arrived
# whole.  apt-get fails when the .dsc or the Debian tarball answers 404 but
# may still have fetched the orig tarball, which is all the harness needs.
apt_orig() {
	local up=${1#*=} f
	up=${up%%-*}
	(cd "$2" && apt-get source -q --download-only "$1" >apt.log 2>&1) || true
	f=$(ls "$2"/*_"$up".orig.tar.xz 2>/dev/null | head -n1) || true
	[ -n "$f" ] && xz -t "$f" 2>/dev/null && echo "$f"
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
		# A folder without one of the patterns must not end the
		# function with a failed test (set -e in the callers).
		for f in "$sel/$name"/*.sh "$sel/$name"/*.awk; do
			[ -f "$f" ] || continue
			install -m 0755 "$f" "$dest/$name/"
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

# summary: the failed and skipped checks of $RES, and the closing line
# "N passed, N failed[, N skipped]"; fails when a check failed.
summary() {
	local p f s
	p=$(grep -c '^PASS ' "$RES" || true)
	f=$(grep -c '^FAIL ' "$RES" || true)
	s=$(grep -c '^SKIP ' "$RES" || true)
	if [ "$f" -gt 0 ]; then
		echo "Failed checks:"
		grep '^FAIL ' "$RES" | sed 's/^/  /'
	fi
	if [ "$s" -gt 0 ]; then
		echo "Skipped checks:"
		grep '^SKIP ' "$RES" | sed 's/^/  /'
	fi
	log "check: done (results in $RES)"
	if [ "$s" -gt 0 ]; then
		echo "$p passed, $f failed, $s skipped"
	else
		echo "$p passed, $f failed"
	fi
	[ "$f" -eq 0 ]
}
