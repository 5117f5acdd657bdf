/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace event of lib/test_kprobe_bench.c: the same event feeds an
 * ftrace hist trigger and a kstats histogram, so the two can be compared.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM test_kprobe_bench

#if !defined(_TEST_KPROBE_BENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TEST_KPROBE_BENCH_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(kpb_sample,
	    TP_PROTO(u64 value),
	    TP_ARGS(value),
	    TP_STRUCT__entry(__field(u64, value)),
	    TP_fast_assign(__entry->value = value;),
	    TP_printk("value=%llu", __entry->value)
);

#endif /* _TEST_KPROBE_BENCH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE test_kprobe_bench_trace
#include <trace/define_trace.h>
