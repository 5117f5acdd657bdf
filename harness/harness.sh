#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make harness: the full host table of tools/testing/kprobe_cache, from the
# series applied to the base, saved in out/harness/.
. "$(dirname "$0")/common.sh"

SRC=$OUT/harness/src
"$TOP/harness/apply.sh" "$SRC"
"$TOP/harness/hostbench.sh" "$SRC" "$OUT/harness" run
