#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: distro.sh [RESULTS]
#
# Checks harness/configs/distro.config against the configuration Debian
# builds its own 6.12 amd64 kernel with (package linux-config-6.12, file
# config.amd64_none_amd64.xz): every CONFIG_ line of the fragment must have
# the same value there.  One result line in RESULTS; SKIP when the package
# cannot be downloaded.  DISTRO_CONFIG=/path/to/.config checks another
# distribution's config instead.
. "$(dirname "$0")/common.sh"

RES=${1:-}
FRAG=$TOP/harness/configs/distro.config
D=$OUT/distro-config
NAME="distro config: every option of distro.config as in"

if [ -n "${DISTRO_CONFIG:-}" ]; then
	cfg=$DISTRO_CONFIG
	what=$cfg
else
	mkdir -p "$D"
	if ! ls "$D"/linux-config-6.12_*.deb >/dev/null 2>&1; then
		log "distro: downloading linux-config-6.12"
		(cd "$D" && apt-get download linux-config-6.12) >"$D/download.log" 2>&1 || true
	fi
	deb=$(ls "$D"/linux-config-6.12_*.deb 2>/dev/null | tail -n1 || true)
	if [ -z "$deb" ]; then
		rec SKIP "$NAME Debian's 6.12 amd64 config" \
			"apt-get download linux-config-6.12 failed: $(tail -n1 "$D/download.log")"
		exit 0
	fi
	ver=$(dpkg-deb -f "$deb" Version)
	rm -rf "$D/x"
	dpkg-deb -x "$deb" "$D/x"
	cfg=$D/config.amd64_none_amd64
	xzcat "$D"/x/usr/src/linux-config-6.12/config.amd64_none_amd64.xz >"$cfg"
	what="Debian's linux-config-6.12 $ver (amd64_none_amd64)"
fi

n=0
bad=()
while IFS= read -r line; do
	[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] || continue
	n=$((n + 1))
	sym=${BASH_REMATCH[1]}
	grep -qxF -- "$line" "$cfg" && continue
	got=$(grep -E "^($sym=|# $sym is not set)" "$cfg" || echo "$sym absent")
	bad+=("$line (Debian: $got)")
done <"$FRAG"

if [ "$n" -eq 0 ]; then
	rec FAIL "$NAME $what" "no CONFIG_ lines in $FRAG"
elif [ ${#bad[@]} -gt 0 ]; then
	printf '  %s\n' "${bad[@]}" >&2
	rec FAIL "$NAME $what" "${#bad[@]} of $n differ"
else
	rec PASS "$NAME $what" "$n options"
fi
