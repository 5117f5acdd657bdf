#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every check of the series, each counted as one result, and a
# closing "N passed, N failed" line.  Works on its own worktree of the base
# repository ($OUT/check/src), never on the developer's tree.
#
# BASE=6.12 (the default) checks the 6.12 series in full and then, beside
# it, every port in ports/ (CHECK_PORTS="7.2 6.18" by default; "none" for
# none): checkpatch, git am, the new files against 6.12's, and the C
# files the series creates or changes compile; with CHECK_PORTS_BOOT=1
# (make check-ports) the last patch is built and booted with the KUnit
# suites and kselftests instead.  BASE=7.2 (or 6.18) checks that port in
# full, as 6.12.
. "$(dirname "$0")/common.sh"

cc=$(kmake_cc)

CHK=$OUT/check
SRC=$CHK/src
OBJ=$CHK/build
OBJ32=$CHK/build-i386
# CHECK_SCOPE=port: the short check of a port, run by the 6.12 check in
# the background, appending to its results (CHECK_RES).
SCOPE=${CHECK_SCOPE:-full}
RES=${CHECK_RES:-$CHK/results.txt}
[ "$SCOPE" = full ] || export RPFX="$RELEASE: "
# qemu.config, and check.config: a smaller kprobe_bench module, fault injection (see there).
FRAGS=("$TOP/harness/configs/qemu.config" "$TOP/harness/configs/check.config")
BOOT_TIMEOUT=${BOOT_TIMEOUT:-900}
# The debug boot runs every test under KASAN, lockdep and kmemleak: about
# 800 s under TCG when the host's CPUs are shared with the builds
# (2026-12-06: its kprobe_events batch test 294 s, kstats_trace 430 s).
DEBUG_BOOT_TIMEOUT=${DEBUG_BOOT_TIMEOUT:-1500}
mkdir -p "$CHK"
[ -n "${CHECK_RES:-}" ] || : >"$RES"
[ "$SCOPE" != full ] || : >"$CHK/step-times"

record() {
	local st=$1 name=$2
	shift 2
	echo "$st ${RPFX:-}$name${*:+: $*}" >>"$RES"
	case "$st" in
	PASS) log "ok:   ${RPFX:-}$name" ;;
	SKIP) log "skip: ${RPFX:-}$name${*:+ ($*)}" ;;
	*) log "FAIL: ${RPFX:-}$name${*:+ ($*)}" ;;
	esac
}

# ran NAME CMD...: run a script that records its own results (CMD's
# argument "$RES" is its results file); when it exits non-zero without
# having recorded a FAIL (set -e stopped it at a command that failed),
# record one, so that no check goes missing unseen.  The script writes to
# a file of its own, appended to RES when it ends: the background jobs
# write to RES meanwhile, and their FAIL lines must not count as its own.
ran() {
	local name=$1 own a rc=0
	local args=()
	shift
	own=$(mktemp "$CHK/ran.XXXXXX")
	for a in "$@"; do
		[ "$a" != "$RES" ] || a=$own
		args+=("$a")
	done
	"${args[@]}" || rc=$?
	cat "$own" >>"$RES"
	[ "$rc" -eq 0 ] || grep -q '^FAIL ' "$own" ||
		record FAIL "$name ran to its end" "exit code $rc"
	rm -f "$own"
}

# kbuild OBJ LOGNAME [make args...]: build in OBJ from SRC, log to a file.
# KBUILD_NICE=N: at niceness N.
kbuild() {
	local obj=$1 name=$2 t0 rc=0
	shift 2
	t0=$(date +%s)
	${KBUILD_NICE:+nice -n "$KBUILD_NICE"} make -C "$SRC" O="$obj" ${cc:+"$cc"} -j"$JOBS" "$@" \
		>"$obj/$name.log" 2>&1 || rc=$?
	step_time "build ${obj##*/}/$name" "$t0"
	if [ "$rc" != 0 ]; then
		grep -E 'error|Error|undefined' "$obj/$name.log" | head -20 >&2
		return 1
	fi
}

# step_times: the longest steps, and a warning past the 45-minute budget
# (a full check from a fresh clone with a cold ccache must fit in it).
step_times() {
	local total=$(($(date +%s) - ${T0%.*}))
	[ -s "$CHK/step-times" ] &&
		log "check: longest steps (s, wall-clock; background jobs overlap the rest):$(sort -rn "$CHK/step-times" |
			head -10 | awk '{ n = $1; $1 = ""; printf "%s%s %d", (NR > 1 ? "," : ""), $0, n }')"
	if [ "$total" -gt 2700 ]; then
		log "check: WARNING: $total s in all, over the 45-minute budget (2,700 s)"
	else
		log "check: $total s in all (budget 2,700 s)"
	fi
}

# bg_rc NAME: where the background job NAME leaves its exit code.  Each
# job writes it itself: bash forgets the status of a child that ended long
# ago once a later child gets its pid, and a full check forks enough
# processes for pid_max (32,768 here) to wrap, after which "wait PID" says
# "not a child" (exit code 127) for a boot that passed.
bg_rc() {
	echo "$CHK/bg-rc-$1"
}

# step_time NAME START: NAME took from START (date +%s) until now; the
# longest steps are listed at the end of the check (step_times).
step_time() {
	echo "$(($(date +%s) - $2)) $1" >>"$CHK/step-times"
}

# bg_run NAME CMD...: run CMD (in the background, as "bg_run ... &") and
# leave its exit code where bg_wait reads it.
bg_run() {
	local name=$1 rc=0 t0
	shift
	t0=$(date +%s)
	"$@" || rc=$?
	step_time "job $name" "$t0"
	echo "$rc" >"$(bg_rc "$name")"
	# "times" in this shell: in a pipe or $(...) it would report a
	# subshell of its own, which has no children.
	times >"$CHK/times-$name"
	log "check: job $name used $(cpu_seconds "$CHK/times-$name") CPU-seconds"
}

# cpu_seconds FILE: the CPU time (user + system) of the children in the
# output of "times" in FILE, in seconds.
cpu_seconds() {
	awk 'NR == 2 {
		for (i = 1; i <= 2; i++) {
			split($i, t, "m"); sub(/s$/, "", t[2]); s += t[1] * 60 + t[2]
		}
		printf "%.0f\n", s
	}' "$1"
}

# bg_wait NAME PID: wait for background job NAME and set bg_status to its
# exit code, or 255 when it left none.  It must run in this shell, never in
# a command substitution: a subshell's "wait" is not the job's parent and
# returns at once, before the job has written its file.
bg_wait() {
	wait "$2" 2>/dev/null || true
	bg_status=$(cat "$(bg_rc "$1")" 2>/dev/null || echo 255)
}

# bg_done NAME PID WHAT [PREFIX]: wait for a background job that records
# its own results; one that failed without recording a FAIL (one that
# starts with PREFIX, when given) is a failed check of its own.
bg_done() {
	bg_wait "$1" "$2"
	[ "$bg_status" = 0 ] || { [ -n "${4:-}" ] && grep -q "^FAIL $4" "$RES"; } ||
		record FAIL "$3 ran to its end" "exit code $bg_status"
}

# wait_boots: wait for the boots running in the background; a boot script
# that stops on an error of its own is a failed check.
wait_boots() {
	local i
	for i in "${!pids[@]}"; do
		bg_wait "${labels[$i]}" "${pids[$i]}"
		[ "$bg_status" = 0 ] ||
			record FAIL "${labels[$i]}: runtests.sh ran to its end" "exit code $bg_status"
	done
	pids=()
	labels=()
}

# A full check (6.12 and the ports) writes about 16 GB under OUT_ROOT
# (trees, build directories, boot images; measured on a fresh clone) and
# ccache's files.  Running out of space half way fails in confusing ways
# (tar, git and the linker each stop on ENOSPC), so say it at the start.
if [ "$SCOPE" = full ]; then
	mkdir -p "$OUT_ROOT"
	free_gb=$(df -BG --output=avail "$OUT_ROOT" | tail -1 | tr -dc 0-9)
	need_gb=${KSERIES_MIN_FREE_GB:-20}
	[ "$free_gb" -ge "$need_gb" ] ||
		die "only ${free_gb} GB free in $OUT_ROOT; make check needs about ${need_gb} GB (KSERIES_MIN_FREE_GB=N to change the limit)"
fi

# Whatever ends this script, the ports' check and the boots running in the
# background end with it: nothing goes on writing into a tree that the
# caller may remove once make check has returned.
killtree() {
	local c
	for c in $(pgrep -P "$1" || true); do
		killtree "$c"
	done
	kill "$1" 2>/dev/null || true
}
trap 'for j in $(jobs -p); do killtree "$j"; done' EXIT

# The host's idle CPU time (idle and iowait), every 30 s in
# $CHK/cpu-idle.txt and over the whole check at its end: where a check
# leaves a CPU idle is where it can still be made shorter.
cpu_idle() {
	awk '/^cpu / { print $5 + $6; exit }' /proc/stat
}
hz=$(getconf CLK_TCK)
if [ "$SCOPE" = full ]; then
	idle0=$(cpu_idle) start=${T0%.*} idle_t0=$(date +%s)
	echo "# seconds since the start, CPUs idle (of $(nproc)) over the 30 s before" \
		>"$CHK/cpu-idle.txt"
	(
		last=$idle0
		lt=$(date +%s)
		while sleep 30; do
			i=$(cpu_idle) t=$(date +%s)
			echo "$((t - start)) $(echo "scale=2; ($i - $last) / $hz / ($t - $lt)" | bc)"
			last=$i lt=$t
		done >>"$CHK/cpu-idle.txt"
	) &
fi

"$TOP/harness/deps.sh"
if ! "$TOP/harness/base.sh"; then
	record FAIL "base: Linux $RELEASE committed as the base"
	[ "$SCOPE" = port ] || { summary; exit 1; }
	exit 0
fi
mapfile -t PATCHES < <(series_patches)
log "check: ${#PATCHES[@]} patches in series${RPFX:+ (Linux $RELEASE)}"

pids=()
labels=()
# 0. The ports (ports/*), one after the other, in the background from the
#    start: their checkpatch runs and builds of the series' C files share
#    the host with 6.12's (make check-ports builds and boots each port).
#    Their tarballs are fetched first, here, so that no apt-get runs
#    beside the vanilla check's.
ports=$(port_list)
if [ "$BASE" = 6.12 ] && [ -n "$ports" ]; then
	for b in $ports; do
		BASE=$b "$TOP/harness/fetch-base.sh" >/dev/null ||
			log "check: no tarball for $b (its check will say so)"
	done
	# Each port's failures are recorded here, so the job itself succeeds.
	check_ports() {
		local b
		for b in $ports; do
			BASE=$b CHECK_SCOPE=port CHECK_RES=$RES "$TOP/harness/check.sh" ||
				record FAIL "$b: check.sh ran to its end" "exit code $?"
		done
		return 0
	}
	rm -f "$(bg_rc ports)"
	bg_run ports check_ports &
	pids+=($!)
	labels+=("ports")
fi

# 1. series and patches/ agree.
bad=
for p in "${PATCHES[@]}"; do
	[ -f "$p" ] || { bad=1; record FAIL "series: $(patch_label "$p") exists"; }
done
for p in "$SERIES_DIR"/patches/*.patch "$SERIES_DIR"/patches/*/*.patch; do
	[ -e "$p" ] || continue
	b=$(patch_label "$p")
	case "$b" in */0000-*) continue ;; esac
	grep -qxF "$b" "$SERIES_DIR/series" || { bad=1; record FAIL "series: $b is listed"; }
done
[ -n "$bad" ] || record PASS "series: series and patches/ agree"
# Each posting: a folder with its cover letter, filled in, and patches.
for q in $POSTINGS; do
	c=$SERIES_DIR/patches/$q/0000-cover-letter.patch
	[ -f "$c" ] && grep -q "^$q/" "$SERIES_DIR/series" &&
		! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE' "$c" &&
		record PASS "series: the $q posting has patches and a filled-in cover letter" ||
		record FAIL "series: the $q posting has patches and a filled-in cover letter"
	# At most 100 lines of prose, before the shortlog.
	[ -f "$c" ] || continue
	n=$(awk '/^Subject:/ { s = 1; next } s && !b && /^$/ { b = 1; next }
		b && /^[^ ].* \([0-9]+\):$/ { exit } b { c++ } END { print c + 0 }' "$c")
	[ "$n" -le 100 ] && record PASS "series: the $q cover letter is at most 100 lines ($n)" ||
		record FAIL "series: the $q cover letter is at most 100 lines" "$n"
done

# Each commit body is short enough to review: at most 60 lines, trailers
# not counted.
long=
for p in "${PATCHES[@]}"; do
	n=$(awk '/^Subject:/ { s = 1; next } s && !b && /^$/ { b = 1; next }
		b && /^---$/ { exit } b { l[++c] = $0 }
		END { while (c > 0 && (l[c] ~ /^[A-Za-z-]+: / || l[c] == "")) c--; print c + 0 }' "$p")
	[ "$n" -le 60 ] || long+=" $(patch_label "$p") ($n)"
done
[ -z "$long" ] && record PASS "series: every commit body is at most 60 lines" ||
	record FAIL "series: every commit body is at most 60 lines" "${long# }"

# Each patch of the fixes posting names the commit it fixes, one listed
# in harness/fixes.list with the same subject, and is for stable.
for p in "${PATCHES[@]}"; do
	case "$(patch_label "$p")" in fixes/*) ;; *) continue ;; esac
	f=$(sed -n 's/^Fixes: \([0-9a-f]\{12\}\) ("\(.*\)")$/\1 \2/p' "$p")
	if [ "$(grep -c . <<<"$f")" = 1 ] && grep -qxF -- "$f" "$TOP/harness/fixes.list" &&
		grep -qx 'Cc: stable@vger.kernel.org' "$p"; then
		record PASS "series: $(patch_label "$p") has Fixes: ${f%% *} and Cc: stable"
	else
		record FAIL "series: $(patch_label "$p") has a listed Fixes: and Cc: stable" "${f:-no Fixes: line}"
	fi
done

# 2. checkpatch --strict: 0 errors, 0 warnings, 0 checks.  Debian's python3
#    (with ply and git) for scripts/spdxcheck.py.  In the background, beside
#    git am and the first build (30 s of one CPU for 33 patches).
# A finding listed in harness/checkpatch.accept (type, file and line)
# does not fail its patch; the result names it.
# "does MAINTAINERS need updating?" (FILE_PATH_CHANGES) has no file or
# line; the answer is no when every file the patch creates lies in a
# folder that an F: entry of the base's MAINTAINERS already covers.
maintained_files() {
	local f d ok
	while read -r f; do
		ok=
		while read -r d; do
			case "$f" in "$d"*) ok=1; break ;; esac
		done < <(git -C "$LINUX" show base:MAINTAINERS |
			sed -n 's,^F:[[:space:]]*\(.*/\)$,\1,p')
		[ -n "$ok" ] || return 1
	done < <(awk '/^diff --git / { f = $4; sub(/^b\//, "", f) }
		/^new file mode/ { print f }' "$1")
}

checkpatch_all() {
	local p b out total found n bad f unmatched
	for p in "${PATCHES[@]}"; do
		b=$(patch_label "$p")
		# UNKNOWN_COMMIT_ID: the base is a release tarball with no
		# history, so checkpatch cannot look up the commits that Fixes:
		# names (their form it still checks, as GIT_COMMIT_ID); step 1
		# above compares them with harness/fixes.list.
		out=$(cd "$LINUX" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict \
			--show-types --ignore UNKNOWN_COMMIT_ID --no-summary-file "$p" 2>&1) || true
		total=$(echo "$out" | grep '^total:' || echo "total: no result")
		# Each finding as "TYPE FILE LINE".
		found=$(awk '/^(ERROR|WARNING|CHECK):[A-Z0-9_]+:/ {
				split($0, a, ":"); t = a[2]
				if (getline <= 0) next
				f = $0
				if (!sub(/^#[0-9]+: FILE: /, "", f)) { print t " ?"; next }
				sub(/:[0-9]+:$/, "", f)
				if (getline <= 0) next
				print t " " f " " substr($0, 2)
			}' <<<"$out")
		# "total: E errors, W warnings, C checks, ...": E + W + C.
		n=$(awk '$3 == "errors," && $5 == "warnings," && $7 == "checks," {
				print $2 + $4 + $6 }' <<<"$total")
		bad=
		[ -n "$n" ] || bad=1
		unmatched=
		while IFS= read -r f; do
			# A finding with no file and line (the commit message's) is
			# never accepted.
			case "$f" in
			"") ;;
			"FILE_PATH_CHANGES ?") maintained_files "$p" || unmatched+="$f; " ;;
			*" ?") unmatched+="$f; " ;;
			*) grep -qxF -- "$f" "$TOP/harness/checkpatch.accept" || unmatched+="$f; " ;;
			esac
		done <<<"$found"
		[ -z "$unmatched" ] || bad=1
		if [ -z "$bad" ] && [ "$n" = 0 ]; then
			record PASS "checkpatch: $b"
		elif [ -z "$bad" ] && [ "$n" = "$(grep -c . <<<"$found")" ]; then
			record PASS "checkpatch: $b" "$n accepted (harness/checkpatch.accept): $(cut -d' ' -f1,2 <<<"$found" | tr '\n' ' ' | sed 's/ $//')"
		else
			echo "$out" | grep -E -A3 '^(ERROR|WARNING|CHECK)' | head -40 >&2 || true
			record FAIL "checkpatch: $b" "$total${unmatched:+ (not accepted: ${unmatched%; })}"
		fi
		if grep -q 'Traceback' <<<"$out"; then
			record FAIL "checkpatch: $b" "a helper script crashed"
		fi
	done
}
rm -f "$(bg_rc checkpatch)"
bg_run checkpatch checkpatch_all &
checkpatch_pid=$!

# 3. git am on the base, one commit per patch.
if ! "$TOP/harness/apply.sh" "$SRC" "$RES"; then
	record FAIL "build" "not attempted: the series does not apply"
	bg_done checkpatch "$checkpatch_pid" checkpatch
	[ "$SCOPE" = port ] || { summary; exit 1; }
	exit 0
fi
cd "$SRC"
HEAD_COMMIT=$(git rev-parse HEAD)

# 4. The overlay folders hold exactly the files the series creates.  A
#    port creates the same files, identical to 6.12's but for those its
#    "differs" file lists, each with the API change that makes it differ.
bad=
created=$(git diff --name-only --diff-filter=A base HEAD | sort)
overlay=$(cd "$TOP" && find lib include kernel arch tools Documentation -type f 2>/dev/null | sort || true)
if [ "$BASE" = 6.12 ]; then
	for f in $created; do
		cmp -s "$f" "$TOP/$f" || { bad=1; log "overlay: $f differs from the series"; }
	done
	extra=$(comm -13 <(echo "$created") <(echo "$overlay"))
	[ -z "$extra" ] || { bad=1; log "overlay: not created by the series: $extra"; }
	[ -z "$bad" ] && record PASS "overlay: matches the files the series creates" ||
		record FAIL "overlay: matches the files the series creates" "run 'make export'"
else
	listed=$(sed -n 's/^\([^#[:space:]][^[:space:]]*\):.*/\1/p' "$SERIES_DIR/differs" 2>/dev/null | sort)
	differ=$(for f in $created; do cmp -s "$f" "$TOP/$f" 2>/dev/null || echo "$f"; done)
	for f in $(comm -23 <(echo "$differ") <(echo "$listed")); do
		bad=1
		log "new files: $f differs from 6.12's and ports/$BASE/differs does not say why"
	done
	for f in $(comm -13 <(echo "$differ") <(echo "$listed")); do
		bad=1
		log "new files: ports/$BASE/differs lists $f, which does not differ"
	done
	[ -z "$bad" ] && record PASS "new files: identical to 6.12's but for the API changes listed" ||
		record FAIL "new files: identical to 6.12's but for the API changes listed"
fi

# 5. The series also applies to the newest vanilla 6.12 that downloads,
#    and its objects compile there: in the background, at a lower
#    priority, until the end (its apt-get tries versions until one
#    answers, 25 s; then the whole tree is extracted and configured).
vanilla_pid=
if [ "$BASE" = 6.12 ]; then
	rm -f "$(bg_rc vanilla)"
	bg_run vanilla ran vanilla.sh "$TOP/harness/vanilla.sh" "$RES" &
	vanilla_pid=$!
fi

# Order: the kernels that boot are built first, so that each boot (one
# host core under TCG) runs while the other checks build on the rest:
# the last patch as the plain guest boots it, then the debug kernel, then
# the build matrix and every earlier patch, newest first, in the same
# build directory as the last patch.

# boot_bg OBJ BOOTDIR LABEL [VAR=VALUE...]: boot OBJ's kernel in the
# background and return once it is staged (copied out of SRC and OBJ).
# As root, the boot runs at a higher priority than the builds: a guest
# is one QEMU thread, the longest single step, and its tests time out.
pri=()
[ "$(id -u)" -ne 0 ] || pri=(nice -n -10)
boot_bg() {
	local obj=$1 dir=$2 label=$3 staged=$CHK/staged-$3 pid
	shift 3
	rm -f "$staged" "$(bg_rc "$label")"
	bg_run "$label" "${pri[@]}" env KSERIES_STAGED="$staged" "$@" \
		"$TOP/harness/runtests.sh" "$SRC" "$obj" "$dir" "$RES" "$label" &
	pid=$!
	pids+=("$pid")
	labels+=("$label")
	while [ ! -e "$staged" ] && kill -0 "$pid" 2>/dev/null; do
		sleep 1
	done
	[ -e "$staged" ] || log "$label: runtests.sh stopped before the boot"
}

# matrix NAME CONFIG-LINE...: build the last patch with the fragment plus
# these lines, as one counted result.
matrix() {
	local name=$1 slug=${1//[^A-Za-z0-9_=]/_}
	local frag=$CHK/matrix-$slug.config
	shift
	printf '%s\n' "$@" >"$frag"
	log "build: $name"
	if "$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "${FRAGS[@]}" "$frag" >"$OBJ/kconfig-$slug.log" 2>&1 &&
		kbuild "$OBJ" "build-$slug" all; then
		record PASS "build: $name"
		return 0
	fi
	cat "$OBJ/kconfig-$slug.log" >&2
	record FAIL "build: $name" "see $OBJ/build-$slug.log"
	return 1
}

mkdir -p "$OBJ"
# 6p. A port beside 6.12 in make check: the C files of the kernel that
#     the series creates or changes compile (one make, in the port's
#     build directory, with the same fragments).  make check-ports builds
#     the last patch and boots it; make check BASE=... checks the port in
#     full.
if [ "$SCOPE" = port ] && [ -z "${CHECK_PORTS_BOOT:-}" ]; then
	files=$(git diff --name-only --diff-filter=d base HEAD)
	mapfile -t objs < <(kernel_c_files <<<"$files" | sed 's/\.c$/.o/')
	what="build: the ${#objs[@]} C files the series creates or changes compile"
	log "$what"
	if [ "${#objs[@]}" -eq 0 ]; then
		record SKIP "$what" "the series changes no C file of the kernel"
	elif "$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "${FRAGS[@]}" >"$OBJ/kconfig.log" 2>&1 &&
		kbuild "$OBJ" objects "${objs[@]}"; then
		record PASS "$what"
	else
		cat "$OBJ/kconfig.log" >&2
		record FAIL "$what" "see $OBJ/objects.log"
	fi
	bg_done checkpatch "$checkpatch_pid" checkpatch
	log "check: Linux $RELEASE done"
	exit 0
fi

# 6. The last patch with CONFIG_KSTATS=m: the plain guest's kernel.
booted=
if matrix CONFIG_KSTATS=m CONFIG_KSTATS=m; then
	booted=1
	record PASS "build: $(patch_label "${PATCHES[-1]}")"
	# 6b. With KSTATS=m, a built-in caller compiles to the stubs.
	ran reachable.sh "$TOP/harness/reachable.sh" "$SRC" "$OBJ" "$RES"
	# 6c. No helper of the kprobe lookup can be probed (the hit-path
	#     objects as built, and again with -fno-inline).
	ran hitpath.sh "$TOP/harness/hitpath.sh" "$SRC" "$OBJ" "$RES"
else
	record FAIL "build: $(patch_label "${PATCHES[-1]}")"
fi

# 7. Boot it in QEMU and run the tests: the plain guest, no preemption,
#    so int3 kprobes boost.
[ -z "$booted" ] || boot_bg "$OBJ" "$CHK/boot" guest

# A port beside 6.12: the series builds and boots; the build matrix, the
# debug kernel and the rest run with make check BASE=...
if [ "$SCOPE" = port ]; then
	bg_done checkpatch "$checkpatch_pid" checkpatch
	wait_boots
	log "check: Linux $RELEASE done"
	exit 0
fi

# 9. The debug kernel (KASAN, lockdep, kmemleak) on the distribution-like
#    config (distro.config: PREEMPT_DYNAMIC, IBT, retpolines, return
#    thunks, HZ=250, Debian's BPF options) on QEMU's "max" CPU, booted
#    with full preemption: the same tests, kprobes that never boost, a
#    short stress run (`make stress` runs the long one) and a short
#    kstats/BPF/hist comparison.  First, the fragment still says what
#    Debian's kernel says.
distro_pid=
rm -f "$(bg_rc distro)"
bg_run distro ran distro.sh "$TOP/harness/distro.sh" "$RES" &
distro_pid=$!
# The debug kernel builds and boots in the background, from a worktree of
# the last patch of its own (HSRC, which the i386 build and the host
# harness below read too): beside the build matrix and the bisect, whose
# single-threaded steps (configuration, the links) leave a CPU idle.  It
# builds at niceness 3: the bisect, the longer of the two, gets the larger
# share of the CPUs, and the debug build the rest (in a fully cold check
# its boot ended 430 s before the bisect, whose last steps then ran with
# a CPU idle).
HSRC=$CHK/head-src
rm -rf "$HSRC" "$CHK/i386-src"
git -C "$SRC" worktree prune
git -C "$SRC" worktree add -q --detach "$HSRC" "$HEAD_COMMIT" ||
	{ record FAIL "a worktree of the last patch"; HSRC=; }
debug_job() {
	log "build: debug config"
	if "$TOP/harness/kconfig.sh" "$HSRC" "$OBJD" "${FRAGS[@]}" "${DISTRO_FRAGS[@]}" \
		"$TOP/harness/configs/debug.config" >"$OBJD/kconfig.log" 2>&1 &&
		SRC=$HSRC KBUILD_NICE=3 kbuild "$OBJD" build all; then
		record PASS "build: debug config (KASAN, lockdep, kmemleak, preemptible)"
		"${pri[@]}" env STRESS_SECONDS="${STRESS_SECONDS:-20}" QEMU_CPU=max \
			KSERIES_APPEND=preempt=full BOOT_TIMEOUT="$DEBUG_BOOT_TIMEOUT" \
			"$TOP/harness/runtests.sh" "$HSRC" "$OBJD" "$CHK/boot-debug" "$RES" debug-guest
	else
		cat "$OBJD/kconfig.log" >&2
		record FAIL "build: debug config (KASAN, lockdep, kmemleak, preemptible)" \
			"see $OBJD/build.log"
	fi
}
if [ -n "$booted" ] && [ -z "${NO_DEBUG:-}" ] && [ -n "$HSRC" ]; then
	OBJD=$CHK/build-debug
	mkdir -p "$OBJD"
	rm -f "$(bg_rc debug-guest)"
	bg_run debug-guest debug_job &
	pids+=($!)
	labels+=("debug-guest")
fi

# 9a. New C files of the kernel are clean under W=1 and sparse, and
#     compile in a kernel without ACPI and PCI (no-acpi.config: a header
#     used but not included shows there), in a build directory of their
#     own (only these objects and what they need), from the worktree
#     HSRC, in the background at a lower priority beside the build matrix
#     (it used to come before the debug kernel and the matrix: 80 s of a
#     fully cold check).
w1_job() {
	local f o mrc out
	renice -n 5 "$BASHPID" >/dev/null
	OBJW=$CHK/build-w1
	mkdir -p "$OBJW"
	if "$TOP/harness/kconfig.sh" "$HSRC" "$OBJW" "${FRAGS[@]}" "$TOP/harness/configs/no-acpi.config" \
		>"$OBJW/kconfig.log" 2>&1; then
		for f in $(kernel_c_files <<<"$created"); do
			o=${f%.c}.o
			mrc=0
			out=$(make -C "$HSRC" O="$OBJW" ${cc:+"$cc"} -j"$JOBS" W=1 C=2 \
				"$o" 2>&1) || mrc=$?
			if [ "$mrc" -ne 0 ] || grep -Eq "(warning|error):" <<<"$out"; then
				echo "$out" | grep -E '(warning|error):|\*\*\*' | head -20 >&2
				record FAIL "W=1 and sparse, no ACPI: $f" \
					"$([ "$mrc" -eq 0 ] && echo "warnings" || echo "make exit code $mrc")"
			else
				record PASS "W=1 and sparse, no ACPI: $f"
			fi
		done
	else
		cat "$OBJW/kconfig.log" >&2
		record FAIL "W=1 and sparse, no ACPI: configuration"
	fi
}
w1_pid=
if [ -n "$booted" ] && [ -n "$HSRC" ]; then
	rm -f "$(bg_rc w1)"
	bg_run w1 w1_job &
	w1_pid=$!
fi

# 9b. CHECK_DISTRO=1: the distribution-like kernel without the debug
#     options, with the default voluntary model (make bench boots this
#     configuration too).
if [ -n "$booted" ] && [ -n "${CHECK_DISTRO:-}" ]; then
	OBJX=$CHK/build-distro
	mkdir -p "$OBJX"
	log "build: distribution-like config"
	if "$TOP/harness/kconfig.sh" "$SRC" "$OBJX" "${FRAGS[@]}" "${DISTRO_FRAGS[@]}" \
		>"$OBJX/kconfig.log" 2>&1 && kbuild "$OBJX" build all; then
		record PASS "build: distribution-like config (PREEMPT_DYNAMIC, IBT, mitigations)"
		boot_bg "$OBJX" "$CHK/boot-distro" distro-guest QEMU_CPU=max
	else
		cat "$OBJX/kconfig.log" >&2
		record FAIL "build: distribution-like config (PREEMPT_DYNAMIC, IBT, mitigations)" \
			"see $OBJX/build.log"
	fi
fi

# 10. The last patch with CONFIG_KSTATS=n, and with CONFIG_KSTATS=y and the
#     lookup cache off (two independent options, one build).
matrix CONFIG_KSTATS=n "# CONFIG_KSTATS is not set" "# CONFIG_KSTATS_KUNIT_TEST is not set" \
	"# CONFIG_KSTATS_TRACE is not set" "# CONFIG_TEST_KSTATS_TRACE is not set" \
	"# CONFIG_TEST_KPROBE_BENCH is not set" \
	"# CONFIG_TEST_KPROBE_BENCH_SITES is not set" || true
if [ -f kernel/kprobe_cache.c ]; then
	matrix "CONFIG_KSTATS=y, CONFIG_KPROBE_CACHE=n" CONFIG_KSTATS=y \
		"# CONFIG_KPROBE_CACHE is not set" "# CONFIG_KPROBE_CACHE_KUNIT_TEST is not set" || true
else
	matrix CONFIG_KSTATS=y CONFIG_KSTATS=y || true
fi

# 11. With CONFIG_KPROBE_CACHE=n the x86 hit paths are the base's code: in
#     its own worktree and build directory, in the background at a lower
#     priority, where it fills the single-threaded steps of the builds below.
samecode_pid=
if [ -n "$booted" ] && [ -f "$SRC/kernel/kprobe_cache.c" ]; then
	rm -f "$(bg_rc samecode)"
	bg_run samecode nice -n 5 "$TOP/harness/samecode.sh" \
		"$CHK/samecode-src" "$CHK/samecode-build" "$RES" &
	samecode_pid=$!
fi

# 12a. i386 (no 64-bit division outside the div64 helpers, in each object
#      of the series that a 32-bit kernel builds): the last patch in the
#      worktree HSRC, in the background at a lower priority beside the
#      bisect below; it compiles those objects only (I386_FULL=1 builds
#      and links the whole kernel, 205 CPU-seconds more when cold).
i386_pid=
if [ -n "$HSRC" ]; then
	rm -f "$(bg_rc i386)"
	bg_run i386 nice -n 5 "$TOP/harness/i386.sh" "$HSRC" "$OBJ32" "$RES" &
	i386_pid=$!
fi

# 12b. The host harness (quick sizes), in the same worktree (the last
#      patch; the i386 build writes only to its own build directory), in
#      the background at a lower priority beside the bisect: its
#      cachegrind runs take one CPU for about 50 s, and it checks miss
#      counts and lookups, no times.  It used to follow the bisect.
hostbench_pid= hostbench_res=
if [ -n "$HSRC" ] && [ -d "$HSRC/tools/testing/kprobe_cache" ]; then
	hostbench_res=$(mktemp "$CHK/hostbench-res.XXXXXX")
	rm -f "$(bg_rc hostbench)"
	bg_run hostbench nice -n 5 "$TOP/harness/hostbench.sh" "$HSRC" "$CHK" \
		quick "$hostbench_res" >"$CHK/hostbench.log" 2>&1 &
	hostbench_pid=$!
fi

# 12c. kstats_record() on the host CPU (tools/testing/kstats, the kernel's
#      lib/kstats.c built in user space): its samples from two per-CPU
#      areas read back whole through the kernel's seq_file code, and a
#      short timing, whose figures the result quotes (not a check).
if [ -n "$HSRC" ] && [ -d "$HSRC/tools/testing/kstats" ]; then
	if make -s -C "$HSRC/tools/testing/kstats" check >"$CHK/kstats-host.log" 2>&1 &&
		grep -q '^check: ok' "$CHK/kstats-host.log"; then
		record PASS "kstats host: lib/kstats.c in user space records and reads back every sample" \
			"$(grep -E '^(warm|cold):' "$CHK/kstats-host.log" | sed 's/ per call.*//' | tr '\n' ';' | sed 's/;$//')"
	else
		tail -5 "$CHK/kstats-host.log" >&2
		record FAIL "kstats host: lib/kstats.c in user space records and reads back every sample" \
			"see $CHK/kstats-host.log"
	fi
fi

# 12. Every earlier patch builds on its own, newest first (vmlinux and the
#     modules: make all's bzImage, the last patch's, is the same step for
#     every patch).
mapfile -t COMMITS < <(git rev-list --reverse base..HEAD)
for ((i = ${#COMMITS[@]} - 1; i >= 0; i--)); do
	c=${COMMITS[$i]}
	name=$(patch_label "${PATCHES[$i]}")
	[ "$c" = "$HEAD_COMMIT" ] && continue
	git checkout -q --detach "$c"
	log "build: $name"
	if KCONFIG_BISECT=1 "$TOP/harness/kconfig.sh" "$SRC" "$OBJ" "${FRAGS[@]}" >"$OBJ/kconfig.log" 2>&1 &&
		kbuild "$OBJ" "build-$i" vmlinux modules; then
		record PASS "build: $name"
	else
		record FAIL "build: $name" "see $OBJ/build-$i.log"
	fi
done
git checkout -q --detach "$HEAD_COMMIT"

# 12d. make bench with every knob set, a small sweep (benchknobs.sh): it
#      exits 0, its report is complete and each knob reached its boots.
#      NO_BENCH=1 skips it.
if [ -z "${NO_BENCH:-}" ]; then
	ran benchknobs.sh "$TOP/harness/benchknobs.sh" "$RES"
else
	record SKIP "make bench with every knob set" "NO_BENCH=1"
fi

# 13. i386 (12a): it records its own results; one that ended without
#     them is a failed check.
[ -z "$i386_pid" ] || bg_done i386 "$i386_pid" "i386: i386.sh" "i386:"

# 13b. The lookup cache on the host CPU (12b): its results, and a failed
#      check if it ended without its own.
if [ -n "$hostbench_pid" ]; then
	bg_wait hostbench "$hostbench_pid"
	cat "$hostbench_res" >>"$RES"
	[ "$bg_status" = 0 ] || grep -q '^FAIL ' "$hostbench_res" ||
		record FAIL "hostbench.sh ran to its end" "exit code $bg_status, see $CHK/hostbench.log"
	rm -f "$hostbench_res"
elif [ -d "$SRC/tools/testing/kprobe_cache" ]; then
	ran hostbench.sh "$TOP/harness/hostbench.sh" "$SRC" "$CHK" quick "$RES" >/dev/null
fi

[ -z "$vanilla_pid" ] || bg_done vanilla "$vanilla_pid" vanilla.sh
[ -z "$w1_pid" ] || bg_done w1 "$w1_pid" "W=1 and sparse: the job" "W=1 and sparse"
[ -z "$distro_pid" ] || bg_done distro "$distro_pid" distro.sh
bg_done checkpatch "$checkpatch_pid" checkpatch
log "check: waiting for the boots"
wait_boots
[ -z "$samecode_pid" ] ||
	bg_done samecode "$samecode_pid" "KPROBE_CACHE=n: samecode.sh" "KPROBE_CACHE=n:"

el=$(($(date +%s) - idle_t0))
idle=$((($(cpu_idle) - idle0) / hz))
log "check: the host's CPUs were idle $idle of $((el * $(nproc))) CPU-seconds ($((100 * idle / (el * $(nproc) + 1)))%; every 30 s in $CHK/cpu-idle.txt)"
times >"$CHK/times-all"
log "check: CPU-seconds used, all steps: $(cpu_seconds "$CHK/times-all") (each background job's: the \"job NAME used\" lines)"
step_times
summary
