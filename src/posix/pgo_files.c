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
#include <sys/stat.h>
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
extern uint8_t __start___llvm_prf_bits[] __attribute__((weak, visibility("hidden")));
extern uint8_t __stop___llvm_prf_bits[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __start___llvm_prf_vtab[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __stop___llvm_prf_vtab[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __start___llvm_prf_vns[] __attribute__((weak, visibility("hidden")));
extern const uint8_t __stop___llvm_prf_vns[] __attribute__((weak, visibility("hidden")));
extern struct ucov_vp_node __start___llvm_prf_vnds[] __attribute__((weak, visibility("hidden")));
extern struct ucov_vp_node __stop___llvm_prf_vnds[] __attribute__((weak, visibility("hidden")));
/* Emitted by clang for IR-level instrumentation (with its variant bits). */
extern const uint64_t __llvm_profile_raw_version __attribute__((weak));
/* The profile file named at compile time (-fprofile-generate[=DIR]). */
extern const char __llvm_profile_filename[] __attribute__((weak));

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
  if (__start___llvm_prf_bits) {
    found.bits = __start___llvm_prf_bits;
    found.bits_end = __stop___llvm_prf_bits;
  }
  if (__start___llvm_prf_vtab) {
    found.vtab = __start___llvm_prf_vtab;
    found.vtab_end = __stop___llvm_prf_vtab;
  }
  if (__start___llvm_prf_vns) {
    found.vnames = __start___llvm_prf_vns;
    found.vnames_end = __stop___llvm_prf_vns;
  }
  if (__start___llvm_prf_vnds) {
    found.vnds = __start___llvm_prf_vnds;
    found.vnds_end = __stop___llvm_prf_vnds;
  }
  /* The version: clang's symbol (IR-level instrumentation), else
   * UCOV_LLVM_PROFILE_VERSION (clang 18's front-end instrumentation without
   * MC/DC reads as 19's), else the layout of the records tells. */
  const char *env = getenv("UCOV_LLVM_PROFILE_VERSION");
  found.version = &__llvm_profile_raw_version ? __llvm_profile_raw_version
                  : env && *env               ? strtoull(env, NULL, 0)
                                              : 0;
  found.name = "default";
  ucov_modules(exe_module, &found);
  struct ucov_pgo_layout l;
  int err = ucov_pgo_prepare(&found, &l);
  if (err) {
    ucov_port_log(err == -UCOV_EOPNOTSUPP
                      ? "ucov: profile: this raw profile version or variant (single-byte "
                        "counters) is not supported: no LLVM profile"
                      : "ucov: profile: the __llvm_prf_data records do not match their "
                        "counters: no LLVM profile");
    return;
  }
  const char *vals = getenv("LLVM_VP_MAX_NUM_VALS_PER_SITE");
  ucov_vp_setup(&found, &l, vals && *vals ? (uint32_t)strtoul(vals, NULL, 10) : 0);
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

static int pgo_dumped;              /* __llvm_profile_dump ran: nothing more at exit */
static char pgo_filename[PATH_MAX]; /* __llvm_profile_set_filename, else LLVM_PROFILE_FILE */

/* LLVM_PROFILE_FILE expanded: %p pid, %h host name, %% percent, %m (or %Nm)
 * a number naming the program's profile layout, and *pool set: several runs
 * merge into that file, as with compiler-rt. */
static UCOV_NOTRACE int profile_path(const struct ucov_llvm_sections *s, char *out, size_t len,
                                     int *pool) {
  uint64_t sig = (uint64_t)(s->data_end - s->data) * 0x9e3779b97f4a7c15ull ^
                 (uint64_t)(s->cnts_end - s->cnts) << 20 ^ (uint64_t)(s->names_end - s->names) ^
                 s->version;
  *pool = 0;
  const char *pat = pgo_filename[0] ? pgo_filename : getenv("LLVM_PROFILE_FILE");
  if ((!pat || !*pat) && __llvm_profile_filename)
    pat = __llvm_profile_filename;
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
    else if (p[0] == '%' && (p[1] == 'm' || (p[1] >= '1' && p[1] <= '9' && p[2] == 'm'))) {
      snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)sig);
      *pool = 1;
      p += p[1] == 'm' ? 0 : 1;
    }
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

static UCOV_NOTRACE void log_path(const char *path, const char *what) {
  char msg[PATH_MAX + 128];
  snprintf(msg, sizeof(msg), "ucov: profile: %s: %s", path, what);
  ucov_port_log(msg);
}

/*
 * At exit: the raw profile to LLVM_PROFILE_FILE (merged into a %m pool), or
 * into UCOV_EXIT_DIR as pgo/<program>.profraw for `ucov run`. Counts since
 * the last reset; the baseline moves, so a racing live read counts nothing twice.
 */
/* Write the raw profile where compiler-rt would. reset: move the baseline.
 * Returns 0 or -1. */
static UCOV_NOTRACE int pgo_write(int reset) {
  struct ucov_llvm_sections s;
  char path[PATH_MAX];
  int pool = 0;
  if (ucov_port_llvm_sections(&s))
    return -1;
  const char *tree = getenv("UCOV_EXIT_DIR");
  if (tree && *tree) {
    mkdir(tree, 0755);
    snprintf(path, sizeof(path), "%s/pgo", tree);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/pgo/%s.profraw", tree, s.name);
  } else if (profile_path(&s, path, sizeof(path), &pool)) {
    log_path("LLVM_PROFILE_FILE", "too long");
    return -1;
  }
  /* No O_TRUNC: the file was emptied at start, and truncating even an empty
   * file costs more than the whole write; emptied here only if not empty. */
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    log_path(path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (!pool && (fstat(fd, &st) != 0 || (st.st_size > 0 && ftruncate(fd, 0) != 0))) {
    log_path(path, strerror(errno));
    close(fd);
    return -1;
  }
  if (!pool) {
    /* Straight into the file: the sections' large blocks go to write(2) as
     * they are, the rest through the writer's buffer. */
    struct fd_sink out;
    fd_sink_init(&out, fd);
    ucov_port_lock();
    int err = ucov_pgo_write(&out.sink, &s, reset);
    ucov_port_unlock();
    if (err)
      log_path(path, "cannot write");
    close(fd);
    return err ? -1 : 0;
  }
  /* A pool: read it under a lock, merge, rewrite it from the start. */
  struct mem_sink old, out;
  mem_sink_init(&old);
  mem_sink_init(&out);
  struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  while (fcntl(fd, F_SETLKW, &lk) != 0 && errno == EINTR)
    ;
  uint8_t buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0)
    old.sink.write(&old.sink, buf, (size_t)n);
  ucov_port_lock();
  mem_sink_reserve(&out, old.len + ucov_pgo_size_bound(&s));
  int err = ucov_pgo_write_merged(&out.sink, &s, reset, old.len ? old.data : NULL, old.len);
  if (err == -UCOV_EINVAL) {
    log_path(path, "not a profile of this program: overwritten");
    err = ucov_pgo_write(&out.sink, &s, reset);
  }
  ucov_port_unlock();
  if (!err && (lseek(fd, 0, SEEK_SET) != 0 || ftruncate(fd, 0) != 0))
    err = -EIO;
  if (!err && write(fd, out.data, out.len) != (ssize_t)out.len)
    err = -EIO;
  if (err)
    log_path(path, "cannot write");
  close(fd);
  mem_sink_free(&old);
  mem_sink_free(&out);
  return err ? -1 : 0;
}

/* At exit, unless __llvm_profile_dump already wrote. The baseline moves, so a
 * live read racing with the exit counts nothing twice. */
static UCOV_NOTRACE void pgo_write_at_exit(void) {
  if (!pgo_dumped)
    pgo_write(1);
  ucov_port_exit_drain();
  uint64_t lost = ucov_vp_dropped();
  if (lost) {
    char msg[200];
    snprintf(msg, sizeof(msg),
             "ucov: profile: %llu values not tracked: out of value nodes (build with -mllvm "
             "-vp-counters-per-site=N for more)",
             (unsigned long long)lost);
    ucov_port_log(msg);
  }
}

/* compiler-rt's public API, for programs that call it. */
int __llvm_profile_write_file(void);
int __llvm_profile_dump(void);
void __llvm_profile_reset_counters(void);
void __llvm_profile_set_filename(const char *name);

UCOV_EXPORT UCOV_NOTRACE int __llvm_profile_write_file(void) {
  return pgo_dumped ? -1 : pgo_write(0);
}

/* Write now, and nothing more at exit. */
UCOV_EXPORT UCOV_NOTRACE int __llvm_profile_dump(void) {
  int ret = __llvm_profile_write_file();
  pgo_dumped = 1;
  return ret;
}

/* Counting from zero again: here, a baseline (live counters are never written). */
UCOV_EXPORT UCOV_NOTRACE void __llvm_profile_reset_counters(void) {
  struct ucov_llvm_sections s;
  ucov_port_lock();
  if (ucov_port_llvm_sections(&s) == 0)
    ucov_pgo_reset(&s);
  pgo_dumped = 0;
  ucov_port_unlock();
}

/*
 * As compiler-rt does, a profile file that is not a %m pool is emptied when
 * the program starts (and when __llvm_profile_set_filename names another):
 * a run that dies leaves no stale profile of an earlier run behind.
 */
static UCOV_NOTRACE void truncate_profile(void) {
  struct ucov_llvm_sections s;
  char path[PATH_MAX];
  int pool;
  const char *tree = getenv("UCOV_EXIT_DIR");
  if ((tree && *tree) || ucov_port_llvm_sections(&s) ||
      profile_path(&s, path, sizeof(path), &pool) || pool)
    return;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0)
    close(fd);
}

UCOV_EXPORT UCOV_NOTRACE void __llvm_profile_set_filename(const char *name) {
  snprintf(pgo_filename, sizeof(pgo_filename), "%s", name ? name : "");
  truncate_profile();
}

/* Early, so that value profiling runs in other constructors too. */
__attribute__((constructor(101))) static UCOV_NOTRACE void pgo_at_exit(void) {
  struct ucov_llvm_sections s;
  if (ucov_port_llvm_sections(&s) == 0) {
    truncate_profile();
    atexit(pgo_write_at_exit);
  }
}
