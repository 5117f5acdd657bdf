#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series must also apply to a vanilla 6.12.y, and build there: the
# newest version of Debian's linux-6.12 source package whose .orig.tar.xz
# downloads (apt-cache showsrc lists them; many answer 404, so newest
# first), or the tarball named by VANILLA_TARBALL.  The patches are
# applied one by one with git am to the files the series modifies; then
# the whole tree, with the series applied, compiles the objects of every C
# file the series creates or changes (make check's configuration, make -k,
# each object checked).  The series needs 6.12.$VANILLA_MIN or later
# (struct event_command's trigger and print callbacks, which 6.12.112 took
# from mainline with "tracing: Merge struct event_trigger_ops into struct
# event_command"): on an older release the objects that use them must fail
# for that reason alone, which is reported as a skip, and every other
# object must compile.  When no tarball can be had, the check is reported
# as skipped, with the reason.
# A patch that changes code which a later 6.12.y changed (NEEDS below:
# the file, a line of the newer code, the change) cannot apply to a
# release without that change: there, when it fails, it is reported as a
# skip with that reason, and the objects of the files it touches are not
# built; on any other release, or for any other patch, a failure fails.
# A patch that builds on one skipped so (AFTER below: words of its
# subject, words of the other's, what it uses) is skipped too, with that
# reason; the files it touches keep the earlier patches' changes and are
# built.
# Usage: vanilla.sh RESULTS
. "$(dirname "$0")/common.sh"

RES=$1
VDIR=$OUT/vanilla
VANILLA_MIN=112
NEEDS=(
	"kernel/module/kallsyms.c|Initialize bounds within memory region|6.12.y's backport of 'module/kallsyms: fix nextval for data symbol lookup' (find_kallsyms_symbol() looks in the region holding the address), which this release predates"
)
AFTER=(
	"find a module's symbols by name|name an address through the address order|the address order's room and helpers"
	"count a symbol's namesakes|find a module's symbols by name|module_kallsyms_on_each_match_symbol()"
)
mkdir -p "$VDIR"

tarball=${VANILLA_TARBALL:-}
if [ -z "$tarball" ]; then
	tarball=$(ls "$VDIR"/linux-6.12_*.orig.tar.xz 2>/dev/null | sort -V | tail -1 || true)
fi
listed() {
	apt-cache showsrc linux-6.12 2>/dev/null | sed -n 's/^Version: //p' |
		sort -u | sort -rV
}
if [ -z "$tarball" ] && [ -z "$(listed)" ] && [ "$(id -u)" -eq 0 ]; then
	# Other deb-src lines (trixie, sid) do not list linux-6.12.
	log "vanilla: adding bookworm's deb-src lines"
	cat >/etc/apt/sources.list.d/kseries-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt-get update -qq >/dev/null 2>&1 || log "vanilla: apt-get update reported an error"
fi
if [ -z "$tarball" ]; then
	versions=$(listed)
	if [ -z "$versions" ]; then
		rec SKIP "apply (vanilla 6.12.y)" "apt-cache showsrc linux-6.12 lists no version (no deb-src lines?); set VANILLA_TARBALL=/path/linux-6.12_6.12.N.orig.tar.xz"
		exit 0
	fi
	tried=
	for v in $versions; do
		log "vanilla: apt-get source --download-only linux-6.12=$v"
		tarball=$(apt_orig "linux-6.12=$v" "$VDIR") || true
		[ -n "$tarball" ] && break
		tried="$tried $v"
	done
	if [ -z "$tarball" ]; then
		rec SKIP "apply (vanilla 6.12.y)" "no orig tarball downloads (tried:$tried); set VANILLA_TARBALL=/path/linux-6.12_6.12.N.orig.tar.xz"
		exit 0
	fi
fi
name=$(basename "$tarball" .orig.tar.xz)
name=${name#linux-6.12_}

# The files the patches modify (not those they create).
created=$(series_patches | xargs grep -h -A1 '^--- /dev/null' |
	sed -n 's,^+++ b/,,p' | sort -u)
files=$(series_patches | xargs grep -h '^--- a/' | sed 's,^--- a/,,' | sort -u |
	comm -23 - <(echo "$created"))
rm -rf "$VDIR/tree"
mkdir -p "$VDIR/tree"
# tar dies of SIGPIPE once head has its line: not an error here.
top=$(tar tJf "$tarball" 2>/dev/null | head -1 | cut -d/ -f1) || true
# shellcheck disable=SC2046
tar xJf "$tarball" -C "$VDIR/tree" --strip-components=1 \
	$(for f in $files; do echo "$top/$f"; done)
cd "$VDIR/tree"
git init -q
git add -Af
hgit commit -q -m "vanilla: the files the series modifies"
# needed PATCH: the reason PATCH cannot apply here, if NEEDS has one.
needed() {
	local need f str why
	for need in "${NEEDS[@]}"; do
		IFS='|' read -r f str why <<<"$need"
		grep -q "^--- a/$f\$" "$1" || continue
		grep -qF -- "$str" "$f" 2>/dev/null && continue
		echo "$why"
		return 0
	done
	return 1
}
# after PATCH: why PATCH is skipped because of a patch skipped before it.
after() {
	local a mine other uses subj
	subj=$(sed -n 's/^Subject: //p' "$1")
	for a in "${AFTER[@]}"; do
		IFS='|' read -r mine other uses <<<"$a"
		[[ "$subj" == *"$mine"* ]] || continue
		[[ "$skipped_subjects" == *"$other"* ]] || continue
		echo "it uses $uses, from the patch \"...$other...\", skipped above"
		return 0
	done
	return 1
}
skipped_files=
skipped_subjects=
while read -r p; do
	if why=$(after "$p"); then
		rec SKIP "apply (vanilla $name): $(patch_label "$p")" "$why"
		skipped_subjects="$skipped_subjects|$(sed -n 's/^Subject: //p' "$p")"
	elif hgit am -q "$p" >/dev/null 2>&1; then
		rec PASS "apply (vanilla $name): $(patch_label "$p")"
	elif why=$(needed "$p"); then
		git am --skip >/dev/null 2>&1 || true
		rec SKIP "apply (vanilla $name): $(patch_label "$p")" "$why"
		skipped_files="$skipped_files $(sed -n 's,^+++ b/,,p' "$p")"
		skipped_subjects="$skipped_subjects|$(sed -n 's/^Subject: //p' "$p")"
	else
		git am --abort >/dev/null 2>&1 || true
		rec FAIL "apply (vanilla $name): $(patch_label "$p")"
		exit 1
	fi
done < <(series_patches)

# The whole tree with the series applied: the release, then the files of
# the patched repository over it.
log "vanilla: extracting the whole $name tree and building the series' objects"
rm -rf "$VDIR/full" "$VDIR/build"
mkdir -p "$VDIR/full"
tar xJf "$tarball" -C "$VDIR/full" --strip-components=1
git -C "$VDIR/tree" ls-files -z | (cd "$VDIR/tree" && xargs -0 cp --parents -t "$VDIR/full")
objs=$( {
	echo "$created"
	echo "$files"
} | kernel_c_files | grep -vxF -f <(printf '%s\n' $skipped_files) |
	sed 's/\.c$/.o/' | sort -u)
if ! "$TOP/harness/kconfig.sh" "$VDIR/full" "$VDIR/build" "$TOP/harness/configs/qemu.config" \
	"$TOP/harness/configs/check.config" >"$VDIR/kconfig.log" 2>&1; then
	tail -5 "$VDIR/kconfig.log" >&2
	rec FAIL "build (vanilla $name): configuration" "see $VDIR/kconfig.log"
	exit 1
fi
cc=$(kmake_cc)
# shellcheck disable=SC2086
LC_ALL=C nice -n 5 make -C "$VDIR/full" O="$VDIR/build" ${cc:+"$cc"} -j"$JOBS" -k $objs \
	>"$VDIR/build.log" 2>&1 || true
minor=${name#6.12.}
minor=${minor%%[!0-9]*}
ok=0 known=() bad=()
for o in $objs; do
	if [ -f "$VDIR/build/$o" ]; then
		ok=$((ok + 1))
	elif [ "$minor" -lt "$VANILLA_MIN" ] &&
	     grep -q "^[^ ]*${o%.o}\.c:[0-9:]* error: .struct event_command. has no member named" \
		"$VDIR/build.log"; then
		known+=("$o")
	else
		bad+=("$o")
	fi
done
if [ ${#bad[@]} -gt 0 ]; then
	grep -E 'error' "$VDIR/build.log" | head -10 >&2
	rec FAIL "build (vanilla $name): the series' objects compile" "${bad[*]} failed, see $VDIR/build.log"
	exit 1
fi
rec PASS "build (vanilla $name): $ok of the series' $(echo "$objs" | wc -w) objects compile"
if [ ${#known[@]} -gt 0 ]; then
	rec SKIP "build (vanilla $name): ${known[*]}" \
		"6.12.$minor predates 6.12.$VANILLA_MIN's struct event_command (trigger, print), which the series needs"
fi
