/* SPDX-License-Identifier: MIT */
/*
 * What the files of ucov.ko share (linux_port.c: the port's duties and the
 * task states; tasks_module.c: where the current one is kept; kcov.c:
 * /sys/kernel/debug/kcov; gcov_debugfs.c: the gcov files and the module
 * map; proto.c: /dev/ucov). Each file's setup and teardown are called by
 * linux_port.c's module init and exit.
 */
#ifndef UCOV_LINUX_PORT_H
#define UCOV_LINUX_PORT_H

#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "ucov/port/device.h"
#include "ucov/port/task.h"

/* A device: one per open of /sys/kernel/debug/kcov. */
struct linux_device {
  struct ucov_device core; /* first: the core hands this pointer back */
};

/* A task's own state (ucov_task.h: where the current one is kept). */
struct linux_task {
  struct ucov_task t;      /* first */
#ifndef UCOV_LINUX_BUILTIN /* (vmlinux keeps the current state in task_struct) */
  struct preempt_notifier pn;
#endif
  struct task_struct *task;
  struct work_struct exit_work;
  u64 handle_given;      /* (vmlinux) the common handle this state set in task_struct */
  struct list_head link; /* tasks (port lock), or the free section states (REMOTE lock) */
};

/* The calling task's own state, made current now if it had none (NULL: no
 * memory, or the task is inside a REMOTE section); given up by task_settle
 * if it traces nothing (no device). Port lock held. */
struct linux_task *task_own(void);
void task_settle(struct linux_task *lt);

/* lt becomes the calling task's state (it takes a module reference), or
 * stops being it (the caller drops that reference). Neither sleeps. Where
 * the current state is kept: tasks_module.c (ucov.ko) or
 * builtin/tasks_builtin.c (vmlinux), which also see tasks end (calling
 * linux_task_exit), hear of each settled state after an ioctl
 * (linux_task_settled) and keep the common handle
 * (ucov_kcov_common_handle). */
void task_attach(struct linux_task *lt);
void task_detach(struct linux_task *lt);
void linux_task_settled(struct linux_task *lt);
void linux_task_exit(struct task_struct *p);
int linux_tasks_init(void);
void linux_tasks_exit(void);

/* remote_sections.c: KCOV_REMOTE_ENABLE's areas set aside before the ioctl takes the
 * port lock (area_size words; may sleep); a section in task context ended by
 * its task's exit. */
void linux_remote_reserve(u32 area_size);
void linux_remote_section_stop(struct linux_task *lt);
int linux_remote_init(void);
void linux_remote_exit(void);

int linux_kcov_init(void);
void linux_kcov_exit(void);
int linux_gcov_init(void);
void linux_gcov_exit(void);
/* gcov_debugfs.c: the files of one object (i_private: its name; a write
 * resets it); a snapshot file's open (fill writes the snapshot: 0 or a
 * negative errno), read and release; a file whose reads are empty. */
struct ucov_sink;
extern const struct file_operations linux_object_fops;
int linux_snapshot_open(struct file *f, int (*fill)(struct ucov_sink *sink, void *arg), void *arg);
/* The addresses of mod's symbols named name (in its full symbol table,
 * CONFIG_KALLSYMS_ALL's), the first max of them into addrs: how many there
 * are, up to max + 1 (more than max). */
int linux_mod_symbols(struct module *mod, const char *name, unsigned long *addrs, int max);
ssize_t linux_snapshot_read(struct file *f, char __user *buf, size_t n, loff_t *pos);
int linux_snapshot_release(struct inode *inode, struct file *f);
ssize_t linux_empty_read(struct file *f, char __user *buf, size_t n, loff_t *pos);

/* pgo_debugfs.c: a module's LLVM profile as it comes or goes (the module
 * notifier's, gcov_debugfs.c), and /sys/kernel/debug/pgo. */
void linux_pgo_module(struct module *mod, int coming);
void linux_pgo_init(void);
void linux_pgo_exit(void);
int linux_proto_init(void);
void linux_proto_exit(void);

#endif
