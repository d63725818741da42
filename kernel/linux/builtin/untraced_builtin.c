// SPDX-License-Identifier: MIT
/*
 * ucov built into vmlinux for CONFIG_GCOV_KERNEL without CONFIG_KCOV: the
 * gcov files and /dev/ucov, but no KCOV device (kcov.rst's file comes
 * with CONFIG_KCOV, as the kernel's own), so no task states and no REMOTE
 * sections: what linux_port.c asks of them does nothing here
 * (tasks_builtin.c, kcov.c and remote_sections.c are CONFIG_KCOV's).
 */
#include "linux_port.h"

void task_attach(struct linux_task *lt) {}

void task_detach(struct linux_task *lt) {}

void linux_task_settled(struct linux_task *lt) {}

void linux_remote_section_stop(struct linux_task *lt) {}

int linux_tasks_init(void) {
  return 0;
}

void linux_tasks_exit(void) {}

int linux_remote_init(void) {
  return 0;
}

void linux_remote_exit(void) {}

int linux_kcov_init(void) {
  return 0;
}

void linux_kcov_exit(void) {}
