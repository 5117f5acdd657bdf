/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace events of lib/test_kstats_trace.c: the ends of the section that
 * the kstats selftest times in tracepoint mode.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM test_kstats_trace

#if !defined(_TEST_KSTATS_TRACE_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TEST_KSTATS_TRACE_EVENTS_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(kstats_test_edge,
		    TP_PROTO(unsigned int us),
		    TP_ARGS(us),
		    TP_STRUCT__entry(__field(unsigned int, us)),
		    TP_fast_assign(__entry->us = us;),
		    TP_printk("us=%u", __entry->us)
);

DEFINE_EVENT(kstats_test_edge, kstats_test_begin,
	     TP_PROTO(unsigned int us),
	     TP_ARGS(us)
);

DEFINE_EVENT(kstats_test_edge, kstats_test_end,
	     TP_PROTO(unsigned int us),
	     TP_ARGS(us)
);

#endif /* _TEST_KSTATS_TRACE_EVENTS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE test_kstats_trace_events
#include <trace/define_trace.h>
