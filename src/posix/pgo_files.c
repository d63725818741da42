/* SPDX-License-Identifier: MIT */
/*
 * POSIX port, LLVM profiles: the executable's __llvm_prf_* sections, and the
 * raw profile written at exit to LLVM_PROFILE_FILE (default.profraw; %p is
 * the pid, %h the host name, %% a percent sign) as compiler-rt writes it.
 * Defining __llvm_profile_runtime keeps compiler-rt's runtime out of links
 * that pass -fprofile-instr-generate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/pgo.h"
#include "memsink.h"
#include "ucov/port.h"
#include "ucov/ucov.h"

UCOV_EXPORT int __llvm_profile_runtime;

extern const uint8_t __start___llvm_prf_data[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __stop___llvm_prf_data[] __attribute__((weak, visibility("hidden")));
extern uint64_t __start___llvm_prf_cnts[] __attribute__((weak, visibility("hidden")));
extern uint64_t __stop___llvm_prf_cnts[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __start___llvm_prf_names[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __stop___llvm_prf_names[] __attribute__((weak, visibility("hidden")));
/* Emitted by clang for IR-level instrumentation (with its variant bits). */
extern const uint64_t __llvm_profile_raw_version __attribute__((weak));

static int exe_module(const struct ucov_module *m, void *arg) {
  struct ucov_llvm_sections *s = arg;
  s->build_id = m->build_id;
  s->build_id_size = m->build_id ? m->build_id_size : 0;
  const char *slash = strrchr(m->path, '/');
  static char name[NAME_MAX + 1];
  snprintf(name, sizeof(name), "%s", slash ? slash + 1 : m->path);
  s->name = name;
  return 1; /* the first module is the executable */
}

/* The sections never change: found once. */
static struct ucov_llvm_sections found;
static int found_ok;
static pthread_once_t found_once = PTHREAD_ONCE_INIT;

static UCOV_NOTRACE void find_sections(void) {
  if (!__start___llvm_prf_data || &__start___llvm_prf_data[0] == &__stop___llvm_prf_data[0])
    return;
  found.data = __start___llvm_prf_data;
  found.data_end = __stop___llvm_prf_data;
  found.cnts = __start___llvm_prf_cnts;
  found.cnts_end = __stop___llvm_prf_cnts;
  found.names = __start___llvm_prf_names;
  found.names_end = __stop___llvm_prf_names;
  found.version = &__llvm_profile_raw_version ? __llvm_profile_raw_version : 8;
  found.name = "default";
  ucov_modules(exe_module, &found);
  found_ok = 1;
}

/* The executable's sections; 0, or -1 if it has no LLVM profile. */
UCOV_NOTRACE int ucov_port_llvm_sections(struct ucov_llvm_sections *s) {
  pthread_once(&found_once, find_sections);
  if (!found_ok)
    return -1;
  *s = found;
  return 0;
}

/* LLVM_PROFILE_FILE expanded: %p pid, %h host name, %% percent. */
static UCOV_NOTRACE int profile_path(char *out, size_t len) {
  const char *pat = getenv("LLVM_PROFILE_FILE");
  if (!pat || !*pat)
    pat = "default.profraw";
  size_t n = 0;
  for (const char *p = pat; *p && n + 1 < len; p++) {
    char tmp[HOST_NAME_MAX + 1] = "";
    if (p[0] == '%' && p[1] == 'p')
      snprintf(tmp, sizeof(tmp), "%d", (int)getpid());
    else if (p[0] == '%' && p[1] == 'h')
      gethostname(tmp, sizeof(tmp));
    else if (p[0] == '%' && p[1] == '%')
      strcpy(tmp, "%");
    if (tmp[0]) {
      n += (size_t)snprintf(out + n, len - n, "%s", tmp);
      p++;
      continue;
    }
    out[n++] = *p;
  }
  out[n < len ? n : len - 1] = 0;
  return n < len ? 0 : -1;
}

static UCOV_NOTRACE void pgo_write_at_exit(void) {
  struct ucov_llvm_sections s;
  char path[PATH_MAX];
  if (ucov_port_llvm_sections(&s) || profile_path(path, sizeof(path)))
    return;
  struct mem_sink out;
  mem_sink_init(&out);
  ucov_port_lock();
  int err = ucov_pgo_write(&out.sink, &s, &ucov_pgo_baseline, 1);
  ucov_port_unlock();
  int fd = err ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    err = write(fd, out.data, out.len) == (ssize_t)out.len ? 0 : -EIO;
    close(fd);
  }
  if (err || fd < 0) {
    char msg[PATH_MAX + 64];
    snprintf(msg, sizeof(msg), "ucov: profile: %s: cannot write", path);
    ucov_port_log(msg);
  }
  mem_sink_free(&out);
}

__attribute__((constructor)) static UCOV_NOTRACE void pgo_at_exit(void) {
  struct ucov_llvm_sections s;
  if (ucov_port_llvm_sections(&s) == 0)
    atexit(pgo_write_at_exit);
}
