#pragma once
// How the host's own threads are scheduled against each other and against the processes it
// starts (adr/0024). Linux keeps scheduling attributes per thread; a thread made later and
// a process started later inherit those of the thread that made it. All best effort: a
// kernel that refuses leaves the thread as it was, and nothing else depends on it.

namespace mcpsh::execution {

// The calling thread runs in scheduler slices of 0.1 ms instead of the kernel's default
// (which grows with the CPUs: 1.4 ms on 2): when it wakes for a request it goes ahead of a
// task that has run for longer, and preempts it at once (EEVDF, Linux 6.12 and later; an
// older kernel ignores the request). For the threads a request passes through: the event loop,
// and the line reader and writer threads it makes. Policy and nice value are kept.
void use_short_slices();

// The calling thread goes back to the kernel's default slice: a thread that starts processes
// (tools, probes) calls it first, so that what it starts competes as any process does.
void use_default_slices();

}  // namespace mcpsh::execution
