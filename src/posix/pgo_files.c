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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ucov/port/pgo.h"
#include "memsink.h"
#include "beneath.h"
#include "pgo_module.h"
#include "posix.h"
#include "ucov/port/port.h"
#include "ucov/ucov.h"

UCOV_EXPORT int __llvm_profile_runtime;

/*
 * The modules with an LLVM profile: the program (found here, first), then
 * shared objects built by `ucov cc -shared`, which register theirs from a
 * constructor (libucov-dso.a). One runtime serves them all, as one
 * compiler-rt per module would: one object each, "pgo/<module>.profraw", and
 * at exit one profile each, appended to the same LLVM_PROFILE_FILE (which
 * llvm-profdata reads as one) or to its own %m pool.
 */
#define PGO_MODULES 32
static struct pgo_module {
  struct ucov_llvm_sections s;
  struct ucov_pgo_state state;
  char name[NAME_MAX + 1];
  const char *filename; /* its __llvm_profile_filename */
  int gone;             /* unloaded: written then, no longer served */
  uint8_t *saved;       /* its last profile then (not a %m pool's): written again by each round */
  size_t saved_len;
} modules[PGO_MODULES];
static int pgo_exited;     /* the exit write ran */
static unsigned n_modules; /* published with release: entries below it never change */
/* Registration only (not the port lock, which callers of ucov_port_llvm_sections hold). */
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t own_once = PTHREAD_ONCE_INIT;
static int vp_ready;

struct find_module {
  uintptr_t addr;
  struct pgo_module *m;
};

static UCOV_NOTRACE int module_of(const struct ucov_module *seg, void *arg) {
  struct find_module *f = arg;
  if (f->addr < seg->start || f->addr >= seg->end)
    return 0;
  f->m->s.build_id = seg->build_id;
  f->m->s.build_id_size = seg->build_id ? seg->build_id_size : 0;
  const char *slash = strrchr(seg->path, '/');
  snprintf(f->m->name, sizeof(f->m->name), "%s", slash ? slash + 1 : seg->path);
  return 1;
}

static void truncate_profile(const struct pgo_module *m);

/* Add a module's sections (once: a module registering again is ignored). */
static UCOV_NOTRACE void add_module(const struct ucov_pgo_module *in) {
  struct ucov_pgo_module r = {0};
  __builtin_memcpy(&r, in, in->size < sizeof(r) ? in->size : sizeof(r));
  if (!r.data || r.data_end <= r.data)
    return;
  pthread_mutex_lock(&modules_lock);
  unsigned n = n_modules;
  for (unsigned i = 0; i < n; i++)
    if (modules[i].s.data == r.data) {
      pthread_mutex_unlock(&modules_lock);
      return;
    }
  if (n == PGO_MODULES) {
    pthread_mutex_unlock(&modules_lock);
    ucov_port_log("ucov: profile: more than 32 modules with an LLVM profile: one not counted");
    return;
  }
  struct pgo_module *m = &modules[n];
  __builtin_memset(m, 0, sizeof(*m));
  m->s = (struct ucov_llvm_sections){
      .data = r.data,
      .data_end = r.data_end,
      .cnts = r.cnts,
      .cnts_end = r.cnts_end,
      .names = r.names,
      .names_end = r.names_end,
      .bits = r.bits,
      .bits_end = r.bits_end,
      .vtab = r.vtab,
      .vtab_end = r.vtab_end,
      .vnames = r.vnames,
      .vnames_end = r.vnames_end,
      .vnds = r.vnds,
      .vnds_end = r.vnds_end,
      .state = &m->state,
  };
  /* The version: clang's symbol (IR-level instrumentation), else
   * UCOV_LLVM_PROFILE_VERSION (clang 18's front-end instrumentation without
   * MC/DC reads as 19's), else the layout of the records tells. */
  const char *env = secure_getenv("UCOV_LLVM_PROFILE_VERSION");
  m->s.version = r.version ? r.version : env && *env ? strtoull(env, NULL, 0) : 0;
  m->filename = r.filename;
  snprintf(m->name, sizeof(m->name), "default");
  struct find_module f = {(uintptr_t)r.data, m};
  ucov_modules(module_of, &f);
  m->s.name = m->name;
  struct ucov_pgo_layout l;
  int err = ucov_pgo_prepare(&m->s, &l);
  if (err) {
    pthread_mutex_unlock(&modules_lock);
    char msg[NAME_MAX + 200];
    snprintf(msg, sizeof(msg),
             err == -UCOV_EOPNOTSUPP
                 ? "ucov: profile: %s: this raw profile version or variant (single-byte "
                   "counters) is not supported: no LLVM profile"
                 : "ucov: profile: %s: the __llvm_prf_data records do not match their "
                   "counters: no LLVM profile",
             m->name);
    ucov_port_log(msg);
    return;
  }
  /* Value nodes: the first module's section and the pool serve every module. */
  if (!vp_ready) {
    const char *vals = secure_getenv("LLVM_VP_MAX_NUM_VALS_PER_SITE");
    ucov_vp_setup(&m->s, &l, vals && *vals ? (uint32_t)strtoul(vals, NULL, 10) : 0);
    vp_ready = 1;
  }
  __atomic_store_n(&n_modules, n + 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&modules_lock);
  truncate_profile(m);
}

/* The program's own sections: module 0, whoever asks first. */
static UCOV_NOTRACE void find_own(void) {
  struct ucov_pgo_module m;
  if (ucov_pgo_this_module(&m))
    add_module(&m);
}

UCOV_EXPORT UCOV_NOTRACE void ucov_pgo_register(const struct ucov_pgo_module *m) {
  if (!m || m->size < offsetof(struct ucov_pgo_module, version))
    return;
  pthread_once(&own_once, find_own);
  add_module(m);
}

/* Module i's sections; 0, 1 if module i was unloaded, -1 past the last. */
UCOV_NOTRACE int ucov_port_llvm_sections(unsigned i, struct ucov_llvm_sections *s) {
  pthread_once(&own_once, find_own);
  if (i >= __atomic_load_n(&n_modules, __ATOMIC_ACQUIRE))
    return -1;
  if (__atomic_load_n(&modules[i].gone, __ATOMIC_ACQUIRE))
    return 1;
  *s = modules[i].s;
  return 0;
}

static int pgo_dumped;              /* __llvm_profile_dump ran: nothing more at exit */
static char pgo_filename[PATH_MAX]; /* __llvm_profile_set_filename, else LLVM_PROFILE_FILE */

/* LLVM_PROFILE_FILE expanded: %p pid, %h host name, %% percent, %m (or %Nm)
 * a number naming the program's profile layout, and *pool set: several runs
 * merge into that file, as with compiler-rt. */
static UCOV_NOTRACE int profile_path(const struct pgo_module *m, char *out, size_t len, int *pool) {
  const struct ucov_llvm_sections *s = &m->s;
  uint64_t sig = (uint64_t)(s->data_end - s->data) * 0x9e3779b97f4a7c15ull ^
                 (uint64_t)(s->cnts_end - s->cnts) << 20 ^ (uint64_t)(s->names_end - s->names) ^
                 s->version;
  *pool = 0;
  const char *pat = pgo_filename[0] ? pgo_filename : secure_getenv("LLVM_PROFILE_FILE");
  if ((!pat || !*pat) && m->filename)
    pat = m->filename;
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
 * A write round (pgo_write: at exit, __llvm_profile_write_file) writes every
 * module: the first to write a file starts it afresh, the others append (as
 * compiler-rt's runtime of each module appends), unloaded modules' saved
 * profiles first. Outside a round (a module unloaded) a write appends.
 */
static uint64_t round_paths[PGO_MODULES];
static unsigned n_round;
static int in_round;

/* Append to path (else start it afresh), and remember it for the round. */
static UCOV_NOTRACE int round_append(const char *path) {
  if (!in_round)
    return 1;
  uint64_t h = 1469598103934665603ull;
  for (const char *c = path; *c; c++)
    h = (h ^ (uint8_t)*c) * 1099511628211ull;
  for (unsigned j = 0; j < n_round; j++)
    if (round_paths[j] == h)
      return 1;
  if (n_round < PGO_MODULES)
    round_paths[n_round++] = h;
  return 0;
}

/* Where module m's profile goes: the UCOV_EXIT_DIR tree, or LLVM_PROFILE_FILE
 * (*pool: a %m pool). 0 or -1. */
static UCOV_NOTRACE int module_path(const struct pgo_module *m, char *path, size_t len, int *pool,
                                    int *tree) {
  const char *dir = secure_getenv("UCOV_EXIT_DIR");
  *pool = 0;
  *tree = dir && *dir;
  if (*tree) {
    mkdir(dir, 0755);
    if (snprintf(path, len, "%s/pgo/%s.profraw", dir, m->s.name) >= (int)len) {
      log_path(m->s.name, "too long");
      return -1;
    }
    return 0;
  }
  if (profile_path(m, path, len, pool)) {
    log_path("LLVM_PROFILE_FILE", "too long");
    return -1;
  }
  return 0;
}

/* Open path for a profile that is not a pool's: appended to, or emptied. In
 * the UCOV_EXIT_DIR tree, resolved beneath it with no link followed. */
static UCOV_NOTRACE int open_profile(const char *path, int append, int tree) {
  /* No O_TRUNC: the file was emptied at start, and truncating even an empty
   * file costs more than the whole write; emptied here only if not empty. */
  const char *dir = tree ? secure_getenv("UCOV_EXIT_DIR") : NULL;
  int flags = O_RDWR | O_CREAT | O_CLOEXEC | (append ? O_APPEND : 0);
  int fd = dir ? ucov_at_open(dir, path + strlen(dir) + 1, flags, 0644, UCOV_BENEATH_MKDIR)
               : ucov_posix_open_making_dirs(path, flags, 0644);
  struct stat st;
  if (fd >= 0 && !append && (fstat(fd, &st) != 0 || (st.st_size > 0 && ftruncate(fd, 0) != 0))) {
    close(fd);
    fd = -1;
  }
  if (fd < 0)
    log_path(path, strerror(errno));
  return fd;
}

/* An unloaded module's saved profile, into its file (or tree). */
static UCOV_NOTRACE int write_saved(const struct pgo_module *m) {
  char path[PATH_MAX];
  int pool, tree;
  if (!m->saved || module_path(m, path, sizeof(path), &pool, &tree) || pool)
    return 0;
  int fd = open_profile(path, !tree && round_append(path), tree);
  if (fd < 0)
    return -1;
  struct ucov_fd_sink out;
  ucov_fd_sink_init(&out, fd);
  int err = out.sink.write(&out.sink, m->saved, m->saved_len);
  if (err)
    log_path(path, strerror(-err));
  close(fd);
  return err ? -1 : 0;
}

/*
 * A %m pool: locked, read (only if it is a regular file of a sane size),
 * merged, and replaced by a file written beside it and renamed, so that a
 * failed write (a full disk) leaves the pool as it was. A writer that waited
 * for the lock of a file replaced meanwhile opens the new one. 0 or -1.
 */
static UCOV_NOTRACE int pgo_write_pool(const struct ucov_llvm_sections *s, const char *path,
                                       int reset) {
  struct stat st;
  const char *why;
  int fd = ucov_posix_open_locked(path, &st, &why);
  if (fd < 0) {
    log_path(path, why ? why : strerror(errno));
    return -1;
  }
  struct ucov_mem_sink old, out;
  ucov_mem_sink_init(&old);
  ucov_mem_sink_init(&out);
  ucov_port_lock();
  size_t bound = ucov_pgo_size_bound(s);
  ucov_port_unlock();
  int err = 0;
  if ((uint64_t)st.st_size > 4 * (uint64_t)bound + (1u << 20)) {
    log_path(path, "larger than any profile of this program: overwritten");
  } else {
    uint8_t buf[65536];
    ssize_t n;
    while (!err && (n = read(fd, buf, sizeof(buf))) != 0) {
      if (n < 0 && errno == EINTR)
        continue;
      err = n < 0 ? -errno : old.sink.write(&old.sink, buf, (size_t)n);
    }
  }
  ucov_port_lock();
  if (!err)
    err = ucov_mem_sink_reserve(&out, old.len + ucov_pgo_size_bound(s));
  if (!err)
    err = ucov_pgo_write_merged(&out.sink, s, reset, old.len ? old.data : NULL, old.len);
  if (err == -UCOV_EINVAL) {
    log_path(path, "not a profile of this program: overwritten");
    out.len = 0;
    err = ucov_pgo_write(&out.sink, s, reset);
  }
  ucov_port_unlock();
  if (!err)
    err = ucov_posix_replace(path, out.data, out.len, 0644, ucov_posix_keep_made);
  if (err)
    log_path(path, strerror(-err));
  close(fd); /* the lock goes with it, after the rename */
  ucov_mem_sink_free(&old);
  ucov_mem_sink_free(&out);
  return err ? -1 : 0;
}

/* Straight into a profile file (not a pool), appended to it or from its
 * start: the sections' large blocks go to write(2) as they are, the rest
 * through the writer's buffer. 0 or -1. */
static UCOV_NOTRACE int pgo_write_in_place(const struct ucov_llvm_sections *s, const char *path,
                                           int tree, int append, int reset) {
  int fd = open_profile(path, append, tree);
  if (fd < 0)
    return -1;
  struct ucov_fd_sink out;
  ucov_fd_sink_init(&out, fd);
  ucov_port_lock();
  int err = ucov_pgo_write(&out.sink, s, reset);
  ucov_port_unlock();
  if (err)
    log_path(path, strerror(-err));
  close(fd);
  return err ? -1 : 0;
}

/*
 * Module i's raw profile, counts since the last reset, where compiler-rt
 * would write it: LLVM_PROFILE_FILE (merged into a %m pool; else appended to
 * a file an earlier module of this round wrote, else from the start), or
 * UCOV_EXIT_DIR's pgo/<module>.profraw for `ucov run`. reset: move the
 * baseline, so a racing live read counts nothing twice (the exit's write:
 * a keeper leaves the module once it is written). 0 or -1.
 */
static UCOV_NOTRACE int pgo_write_module(unsigned i, int reset) {
  const struct pgo_module *m = &modules[i];
  char path[PATH_MAX];
  int pool, tree;
  if (module_path(m, path, sizeof(path), &pool, &tree))
    return -1;
  if (!ucov_posix_keep_begin(1, &m->s, path, reset))
    return 0;
  /* (a file written in place never lands for the keeper, which writes it
   * again whole, as it is overwritten; a pool lands by its rename) */
  int err = pool ? pgo_write_pool(&m->s, path, reset)
                 : pgo_write_in_place(&m->s, path, tree, !tree && round_append(path), reset);
  ucov_posix_keep_end(err == 0);
  return err;
}

/* A round: every module's profile; 0, or -1 if one could not be written (or none). */
static UCOV_NOTRACE int pgo_write(int reset) {
  unsigned n = __atomic_load_n(&n_modules, __ATOMIC_ACQUIRE);
  int ret = n ? 0 : -1;
  in_round = 1;
  n_round = 0;
  for (unsigned i = 0; i < n; i++)
    if (__atomic_load_n(&modules[i].gone, __ATOMIC_ACQUIRE))
      ret |= write_saved(&modules[i]);
  for (unsigned i = 0; i < n; i++)
    if (!__atomic_load_n(&modules[i].gone, __ATOMIC_ACQUIRE))
      ret |= pgo_write_module(i, reset);
  in_round = 0;
  return ret;
}

/* Did s's counters move since its last reset? (lock held) */
static UCOV_NOTRACE int counted_since(const struct ucov_llvm_sections *s) {
  const uint64_t *base = s->state ? s->state->base_cnts : NULL;
  for (const uint64_t *c = s->cnts; c < s->cnts_end; c++)
    if (*c != (base ? base[c - s->cnts] : 0))
      return 1;
  return 0;
}

/* A library unloads after the exit's write (the program's runtime writes
 * before the libraries' destructors run): what those counted, since the
 * baseline the exit's write moved, appended to its file as a profile of its
 * own (llvm-profdata adds them up), or merged into its pool. */
static UCOV_NOTRACE void pgo_write_late(unsigned i) {
  const struct pgo_module *m = &modules[i];
  char path[PATH_MAX];
  int pool, tree;
  ucov_port_lock();
  int moved = counted_since(&m->s);
  ucov_port_unlock();
  if (!moved || module_path(m, path, sizeof(path), &pool, &tree))
    return;
  if (pool)
    pgo_write_pool(&m->s, path, 1);
  else
    pgo_write_in_place(&m->s, path, tree, 1, 1);
}

/* A shared object goes away: its profile is written now, as its own
 * compiler-rt would write it when unloaded, and no longer served. */
UCOV_NOTRACE void ucov_pgo_module_unload(uintptr_t base) {
  unsigned n = __atomic_load_n(&n_modules, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++) {
    struct pgo_module *m = &modules[i];
    if (m->gone || ucov_posix_module_base(m->s.data) != base)
      continue;
    char path[PATH_MAX];
    int pool = 0, tree;
    if (!pgo_exited && !pgo_dumped && module_path(m, path, sizeof(path), &pool, &tree) == 0) {
      if (pool) { /* merged into its pool now, as with compiler-rt */
        pgo_write_module(i, 1);
      } else { /* kept: written now, and again by each later round */
        struct ucov_mem_sink out;
        ucov_mem_sink_init(&out);
        ucov_port_lock();
        int err = ucov_pgo_write(&out.sink, &m->s, 1);
        ucov_port_unlock();
        if (!err) {
          m->saved = out.data;
          m->saved_len = out.len;
          write_saved(m);
        } else {
          ucov_mem_sink_free(&out);
        }
      }
    } else if (pgo_exited && !pgo_dumped && !ucov_posix_counters_borrowed()) {
      pgo_write_late(i);
    }
    ucov_port_lock(); /* no live read in flight on it */
    __atomic_store_n(&m->gone, 1, __ATOMIC_RELEASE);
    ucov_port_unlock();
  }
}

/* At exit, unless __llvm_profile_dump already wrote. The baseline moves, so a
 * live read racing with the exit counts nothing twice. */
static UCOV_NOTRACE void pgo_write_at_exit(void) {
  if (ucov_posix_counters_borrowed())
    return; /* a forked child's counts are in the counters it shares: not its to write */
  if (!pgo_dumped)
    pgo_write(1);
  pgo_exited = 1;
  ucov_posix_exit_written(UCOV_POSIX_EXITED_PGO);
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

UCOV_NOTRACE void ucov_posix_pgo_exit(void) {
  pthread_once(&own_once, find_own);
  unsigned n = __atomic_load_n(&n_modules, __ATOMIC_ACQUIRE);
  for (unsigned i = 0; i < n; i++) /* (the owner's resets) */
    ucov_posix_keeper_pgo_base(&modules[i].s);
  pgo_write_at_exit();
}

/* compiler-rt's public API, for programs that call it. */
int __llvm_profile_write_file(void);
int __llvm_profile_dump(void);
void __llvm_profile_reset_counters(void);
void __llvm_profile_set_filename(const char *name);

UCOV_EXPORT UCOV_NOTRACE int __llvm_profile_write_file(void) {
  if (ucov_posix_counters_borrowed())
    return 0; /* (the owner writes these counts) */
  pthread_once(&own_once, find_own);
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
  pthread_once(&own_once, find_own);
  ucov_port_lock();
  for (unsigned i = 0, r; (r = (unsigned)ucov_port_llvm_sections(i, &s)) != ~0u; i++)
    if (r == 0)
      ucov_pgo_reset(&s);
  pgo_dumped = 0;
  ucov_port_unlock();
}

/*
 * As compiler-rt does, a profile file that is not a %m pool is emptied when
 * the module starts (and when __llvm_profile_set_filename names another):
 * a run that dies leaves no stale profile of an earlier run behind.
 */
static UCOV_NOTRACE void truncate_profile(const struct pgo_module *m) {
  char path[PATH_MAX];
  int pool;
  const char *tree = secure_getenv("UCOV_EXIT_DIR");
  if ((tree && *tree) || profile_path(m, path, sizeof(path), &pool) || pool)
    return;
  int fd = ucov_posix_open_making_dirs(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0)
    close(fd);
}

UCOV_EXPORT UCOV_NOTRACE void __llvm_profile_set_filename(const char *name) {
  snprintf(pgo_filename, sizeof(pgo_filename), "%s", name ? name : "");
  pthread_once(&own_once, find_own);
  for (unsigned i = 0, n = __atomic_load_n(&n_modules, __ATOMIC_ACQUIRE); i < n; i++)
    truncate_profile(&modules[i]);
}

UCOV_NOTRACE void ucov_posix_pgo_at_exit(void) {
  if (__atomic_load_n(&n_modules, __ATOMIC_ACQUIRE))
    pgo_write_at_exit();
}

/* Early, so that value profiling runs in other constructors too. */
__attribute__((constructor(101))) static UCOV_NOTRACE void pgo_start(void) {
  if (ucov_posix_runtime_active())
    pthread_once(&own_once, find_own);
}
