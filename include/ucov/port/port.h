/* SPDX-License-Identifier: MIT */
/*
 * ucov/port/port.h - the port contract, both ways.
 *
 * The core (src/core/) implements the compiler hooks, the KCOV device state
 * machine, the gcov and LLVM profile runtimes, the object registry and the
 * control protocol, and knows nothing about the OS. A port (src/posix/ for
 * processes, examples/baremetal/ for a kernel; hypervisors and firmware
 * later) gives it a home. A port includes only the headers of include/ucov,
 * never those of src/core (a test checks it).
 *
 * REQUIRED: a port defines these; the core does not link without them.
 *  - one lock that serialises device and object operations (never taken on
 *    a hook path): ucov_port_lock/unlock;
 *  - memory for the core's bookkeeping (ucov_port_alloc/free) and for trace
 *    areas (ucov_port_area_alloc, ucov_port_device_release);
 *  - a way to learn that a task ended (ucov_port_task_bind), so that its
 *    device is disabled (ucov_task_exit);
 *  - a per-task home for struct ucov_task (ucov/port/task.h): by default C11
 *    thread-local storage; a port without TLS builds the core with
 *    -DUCOV_THREAD_LOCAL= and saves and restores ucov_task_self around its
 *    own task switches.
 *
 * OPTIONAL: the core defines each of these weakly with the default its
 * comment gives; a port that has the service defines its own.
 *
 * OFFERED: what the core gives a port, in the other headers of
 * include/ucov/port (each call marked UCOV_PORT_API):
 *  - ucov/port/device.h: struct ucov_device (a port embeds it in its device) and
 *    ucov_device_ioctl, ucov_device_mmap_check, ucov_device_close;
 *  - ucov/port/task.h: ucov_task_self; below: ucov_task_exit, ucov_task_fork_child;
 *  - ucov/port/objects.h: the object registry (list, size, read, reset,
 *    read-and-reset, reset-all, two-phase reset) over any sink (ucov/port/sink.h);
 *  - ucov/port/frame.h: the control protocol's frames and requests (ucov_serve for
 *    a port with its own transport, ucov_serve_transport over the byte
 *    transport below);
 *  - ucov/port/units.h: the --coverage units one at a time, each written
 *    (merged with the file it replaces) for a port that writes files at
 *    exit or when a module goes away; ucov/port/pgo.h: the LLVM raw profile
 *    writer and the value profiler's setup, over the sections a port finds;
 *  - ucov/port/remote.h: REMOTE handles and the common handle;
 *  - ucov/port/compiler.h: the attributes runtime code needs (UCOV_NOTRACE, ...).
 *
 * Only freestanding headers are used here, so a port written for a kernel can
 * include it as is.
 */
#ifndef UCOV_PORT_H
#define UCOV_PORT_H

#include <stddef.h>
#include <stdint.h>

struct ucov_device;
struct ucov_task;

/* ============================================================ REQUIRED */

/* Serialise device state changes. Called on ioctl paths only, never from a hook. */
void ucov_port_lock(void);
void ucov_port_unlock(void);

/*
 * Give device `dev` a trace area of `bytes` bytes (a multiple of 8, at least 16),
 * zero-filled, 16-byte aligned at least, shared with whoever maps the device. Returns NULL if there
 * is no memory. Called with the port lock held.
 */
uint64_t *ucov_port_area_alloc(struct ucov_device *dev, uint64_t bytes);

/*
 * The core is done with `dev`: its owner closed it and no task traces into it.
 * The port frees the area and the device. Called with the port lock held.
 */
void ucov_port_device_release(struct ucov_device *dev);

/*
 * Task `task` (the caller's own) has just enabled a device. The port arranges
 * for ucov_task_exit(task) to run when the task ends. Returns 0 or a negative
 * errno value. Called with the port lock held.
 */
int ucov_port_task_bind(struct ucov_task *task);

/* Memory for the core's own bookkeeping (unit records, reset baselines, parse
 * tables, REMOTE section areas); zero-filled, 16-byte aligned. Never called
 * from a hook. NULL if there is none. */
void *ucov_port_alloc(size_t bytes);
void ucov_port_free(void *p);

/* ============================================================ OPTIONAL */

/* A one-line diagnostic for a human (libgcov prints these to stderr).
 * Default: dropped. */
void ucov_port_log(const char *msg);

/*
 * The program is exiting (__gcov_exit, at_exit = 1), asked for a dump
 * (__gcov_dump, 0), or a client asked for one in place (`ucov pull
 * --in-place`, 2): write every gcov unit where the port keeps them (files for
 * a hosted port, merged as at exit). At exit and in place the dump also moves
 * the baselines to what it wrote, so that a live read racing with the exit
 * does not report those counts again, and a later exit adds only what came
 * after. Called with the port lock held. Default: nothing (a port without
 * files: the host pulls the objects).
 */
void ucov_port_gcov_dump(int at_exit);

/*
 * Write the module map (the "modules" object) into sink, a struct ucov_sink
 * of the core. Returns 0, a negative errno, or -UCOV_EOPNOTSUPP if the port
 * has no module map. Called with the port lock held. Default: -UCOV_EOPNOTSUPP.
 */
struct ucov_sink;
int ucov_port_modules_write(struct ucov_sink *sink);

/* The LLVM profile sections (clang -fprofile-instr-generate) of module i
 * (0, 1, ...: the program, then the shared objects that registered theirs),
 * a struct ucov_llvm_sections of the core. 0, or -1 if there is no module i
 * with a profile; 1 if module i was unloaded (skip it). Indexes do not change
 * while the process runs. Default: -1 (no LLVM profiles). */
struct ucov_llvm_sections;
int ucov_port_llvm_sections(unsigned i, struct ucov_llvm_sections *s);

/*
 * The process's KCOV devices, for the trace objects "kcov/<id>.kcov": the one
 * after prev (NULL: the first), with a number that names it for its life in
 * *id; NULL after the last. Called with the port lock held. Default: NULL
 * (no trace objects).
 */
struct ucov_device *ucov_port_device_next(struct ucov_device *prev, uint32_t *id);

/*
 * The INFO request's answer: "key=value\n" lines about the target (pid and
 * exe for a process, the kernel's name for a kernel; version; protocol).
 * 0 or a negative errno. Called with the port lock not held. Default:
 * "version=" and "protocol=" lines.
 */
int ucov_port_info(struct ucov_sink *sink);

/*
 * The COMMAND request: run a command the target defines (a kernel's shell)
 * with UCOV_COMMAND_* flags, its answer into out. 0, a negative errno, or
 * -UCOV_EOPNOTSUPP for a target without commands (a process). Default:
 * -UCOV_EOPNOTSUPP.
 */
int ucov_port_command(uint32_t flags, const char *cmd, size_t len, struct ucov_sink *out);

/*
 * A byte transport, for a port whose target serves the control protocol
 * through ucov_serve_transport() (src/core/frame.h: a kernel's serial line).
 * read: the next byte (0-255); or -1 when none came within the port's frame
 * timeout (about a second), unless wait is set: then it waits as long as it
 * takes (it may still return -1, and is called again). write: all n bytes.
 * A port with a transport of its own (the POSIX control socket) returns -1.
 * Default: -1, and writes dropped.
 */
int ucov_port_transport_read(int wait);
void ucov_port_transport_write(const void *buf, size_t n);

/* Are a and b (code or data addresses) in the same loaded module? A port with
 * one module (a kernel, firmware) says yes. Default: 1. */
int ucov_port_same_module(const void *a, const void *b);

/* The program wrote its exit-time counts: a port serving objects refuses new
 * requests and lets those in flight finish (their replies carry counts). No lock.
 * Default: nothing. */
void ucov_port_exit_drain(void);

/* A gcov unit was registered: a port that serves objects may start now. Lock
 * held. Default: nothing. */
void ucov_port_object_added(void);

/* How a unit came (before the registry has it; lock held): gcc's
 * __gcov_init(a) (kind UCOV_UNIT_FROM_GCC), or clang's llvm_gcov_init(a, b)
 * (UCOV_UNIT_FROM_CLANG: writeout, reset). A port that registers the same
 * units again in another process (a copy of this one) keeps them. Default:
 * nothing. */
#define UCOV_UNIT_FROM_GCC 1
#define UCOV_UNIT_FROM_CLANG 2
void ucov_port_unit_source(int kind, void *a, void *b);

/* The unit just told (ucov_port_unit_source) registered, with this reset
 * baseline (none when it was there already); and a baseline moved (a
 * reset committed). A port that writes the units from another process
 * keeps the moves there. Lock held. Default: nothing. */
struct ucov_baseline;
void ucov_port_unit_baseline(struct ucov_baseline *b);
void ucov_port_baseline_moved(const struct ucov_baseline *b);
/* The exit writes every unit again (libgcov's root->dumped cleared): a
 * __gcov_reset, or a dump in place. Lock held. Default: nothing. */
void ucov_port_units_rearmed(void);
/* The same for an LLVM profile: its counters' baseline moved (s->state's
 * base_cnts). Lock held. Default: nothing. */
struct ucov_llvm_sections;
void ucov_port_pgo_baseline_moved(const struct ucov_llvm_sections *s);

/*
 * Tracing starts in the target (live = 1: the first device was enabled, by
 * ENABLE, UNIQUE_ENABLE or REMOTE_ENABLE; called before that enable returns)
 * or ends (0: the last one was disabled). A port whose hook call sites sleep
 * while nobody traces (dormant builds: NOPs in the text) wakes them here and
 * puts them back to sleep. 0, or a negative errno that fails the enable.
 * Lock held. Default: 0.
 */
int ucov_port_trace_live(int live);

/*
 * A device shared by several address spaces (a descriptor inherited across
 * fork, as one Linux file is shared): the calling task is about to enable
 * `dev`, whose core state here is READY. claim returns 0 and makes the task
 * its owner everywhere the device is shared, or -UCOV_EINVAL if a live task
 * of another address space has it enabled (Linux's kcov->mode is then not
 * KCOV_MODE_INIT for everyone). unclaim gives it up: the enable failed
 * after the claim, or the device was disabled or its task ended. Lock held.
 * Default: 0, nothing (the device lives in one address space).
 */
int ucov_port_device_claim(struct ucov_device *dev);
void ucov_port_device_unclaim(struct ucov_device *dev);

/*
 * The REMOTE lock: guards the handle registry and the appends of finished
 * sections (ucov/port/remote.h), inside the port lock on the registry's
 * writers. A port whose sections may start where the task cannot sleep (a
 * kernel's softirq, a spinlock held) makes it a spinlock that masks
 * interrupts, and returns what unlock restores. Default: nothing (the port
 * lock, which ucov_remote_start/stop take, covers it).
 */
unsigned long ucov_port_remote_lock(void);
void ucov_port_remote_unlock(unsigned long flags);

/* ============================================================= OFFERED */

/* An ENTRY (is_exit 0) or EXIT record at pc for the calling task if it
 * traces in PC_EXT mode, as __cyg_profile_func_enter/_exit append them: for
 * a port's own entry/exit instrumentation. No lock; a hook's fast path. */
void ucov_trace_ext_event(uint64_t pc, int is_exit);

/* The task ended: disable the device it traced into, if any. Takes the port lock. */
void ucov_task_exit(struct ucov_task *task);

/*
 * In a freshly forked child, for each device of the port: a device that a
 * task of the parent had enabled (by ENABLE or UNIQUE_ENABLE) is not enabled
 * by any task of this child; its owner is the parent's, as the port's claim
 * says. A REMOTE registration stays (its handles are the parent's, and the
 * child's sections for them still land in the area). With the port lock
 * that the parent held across fork.
 */
void ucov_device_fork_child(struct ucov_device *dev);

/*
 * In a freshly forked child, before it runs other code: the child does not
 * trace (KCOV does not inherit coverage across fork). Takes no lock.
 */
void ucov_task_fork_child(void);

/* Negative errno values the core returns (Linux numbering). */
#define UCOV_ENOENT 2
#define UCOV_ENOMEM 12
#define UCOV_EBUSY 16
#define UCOV_EEXIST 17
#define UCOV_EINVAL 22
#define UCOV_ENOTTY 25
#define UCOV_ENODATA 61
#define UCOV_EOPNOTSUPP 95
#define UCOV_ESHUTDOWN 108
#define UCOV_ESTALE 116

#endif /* UCOV_PORT_H */
