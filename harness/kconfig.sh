#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Usage: kconfig.sh SRC OBJ FRAGMENT...
#
# Makes OBJ/.config from tinyconfig plus the fragments, then checks that
# every option the fragments ask for made it into the result. OBJ/.config
# is only replaced when its contents change, so builds stay incremental.

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 3 ] || die "usage: $0 SRC OBJ FRAGMENT..."
SRC=$(realpath -e -- "$1") || die "no source tree $1"
mkdir -p -- "$2"
OBJ=$(realpath -e -- "$2")
shift 2
FRAGS=()
for f in "$@"; do
	FRAGS+=("$(realpath -e -- "$f")") || die "no fragment $f"
done

STAMP=$OBJ/.kseries-kconfig.stamp
NEW=$OBJ/.config.kseries-new
cc=$(kmake_cc)

# Kconfig files of SRC, for hashing and for the list of known symbols.
kconfig_files() {
	find "$SRC" -name .git -prune -o \
		\( -name 'Kconfig*' -o -path '*/configs/*.config' \) \
		-type f -print | LC_ALL=C sort
}

# Everything the generated .config depends on, as one hash.
inputs_hash() {
	{
		echo "src=$SRC arch=${ARCH:-} cc=$cc"
		gcc --version | head -n1
		for f in "${FRAGS[@]}"; do
			echo "fragment $f"
			cat -- "$f"
		done
		kconfig_files | xargs -d '\n' sha256sum
	} | sha256sum | cut -d' ' -f1
}

config_hash() {
	if [ -f "$OBJ/.config" ]; then
		sha256sum <"$OBJ/.config" | cut -d' ' -f1
	else
		echo none
	fi
}

inputs=$(inputs_hash)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$inputs $(config_hash)" ]; then
	log "kconfig: $OBJ/.config is up to date"
else
	log "kconfig: tinyconfig + ${FRAGS[*]##*/}"
	rm -f -- "$NEW" "$NEW.old"
	# Generate into a side file so .config keeps its timestamp.
	export KCONFIG_CONFIG=$NEW
	klog=$OBJ/.kseries-kconfig.log
	{
		make -C "$SRC" O="$OBJ" ${cc:+"$cc"} tinyconfig
		(cd "$OBJ" && "$SRC/scripts/kconfig/merge_config.sh" -m \
			"$NEW" "${FRAGS[@]}")
		make -C "$SRC" O="$OBJ" ${cc:+"$cc"} olddefconfig
	} >"$klog" 2>&1 || { cat "$klog" >&2; die "kconfig failed"; }
	unset KCONFIG_CONFIG
	if cmp -s -- "$NEW" "$OBJ/.config"; then
		rm -f -- "$NEW"
		log "kconfig: .config unchanged"
	else
		mv -f -- "$NEW" "$OBJ/.config"
		log "kconfig: .config updated"
	fi
	rm -f -- "$NEW.old"
	echo "$inputs $(config_hash)" >"$STAMP"
fi

# Verify: the last setting of each symbol in the fragments must hold.
known=$(kconfig_files | xargs -d '\n' grep -hoE \
	'^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+' |
	awk '{ print $2 }' | LC_ALL=C sort -u)
declare -A want=()
order=()
for f in "${FRAGS[@]}"; do
	while IFS= read -r line; do
		if [[ $line =~ ^CONFIG_([A-Za-z0-9_]+)=(.*)$ ]]; then
			sym=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		elif [[ $line =~ ^#\ CONFIG_([A-Za-z0-9_]+)\ is\ not\ set ]]; then
			sym=${BASH_REMATCH[1]} val=n
		else
			continue
		fi
		[ -n "${want[$sym]+x}" ] || order+=("$sym")
		want[$sym]=$val
	done <"$f"
done

bad=0
for sym in "${order[@]}"; do
	val=${want[$sym]}
	if ! grep -qxF -- "$sym" <<<"$known"; then
		log "kconfig: CONFIG_$sym not in this tree, skipped"
		continue
	fi
	got=$(grep -E "^(CONFIG_$sym=|# CONFIG_$sym is not set)" \
		"$OBJ/.config" || true)
	case "$got" in
	"CONFIG_$sym="*) got=${got#*=} ;;
	*) got=n ;;
	esac
	if [ "$got" != "$val" ]; then
		# A commit in the middle of the series may define an option
		# that only a later commit makes selectable (an architecture's
		# HAVE_ symbol): KCONFIG_BISECT=1 accepts that, loudly.
		if [ "${KCONFIG_BISECT:-0}" = 1 ] && [ "$got" = n ]; then
			log "kconfig: CONFIG_$sym not selectable at this commit, skipped"
			continue
		fi
		echo "kconfig: CONFIG_$sym: wanted $val, got $got" >&2
		bad=1
	fi
done
[ "$bad" = 0 ] || die "kconfig: fragment options were dropped or changed"
log "kconfig: all ${#order[@]} fragment options verified"
