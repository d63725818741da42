/* SPDX-License-Identifier: MIT */
/*
 * POSIX port, profile path: exit-time .gcda files as libgcov writes them.
 *
 * Each unit's .gcda goes to its compiled-in path, relocated by GCOV_PREFIX and
 * GCOV_PREFIX_STRIP as libgcov does; missing directories are created; the file
 * is locked (fcntl) while an existing one is read, merged (counts add, runs
 * increase) and rewritten. A file of another compilation is overwritten; one
 * that does not match (or is corrupt) is left alone with a message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ucov/port/gcov_abi.h"
#include "ucov/port/objects.h"
#include "ucov/port/units.h"
#include "memsink.h"
#include "beneath.h"
#include "pgo_module.h"
#include "posix.h"
#include "ucov/port/port.h"

/*
 * The path a unit's .gcda is written to: GCOV_PREFIX / GCOV_PREFIX_STRIP
 * applied as libgcov does (a strip without a prefix means "."); compiler-rt,
 * for clang units, relocates only when GCOV_PREFIX is set.
 */
static UCOV_NOTRACE int gcda_path(const char *fname, int clang, char *out, size_t outlen) {
  const char *prefix = secure_getenv("GCOV_PREFIX");
  const char *strip_env = secure_getenv("GCOV_PREFIX_STRIP");
  int strip = strip_env ? atoi(strip_env) : 0;
  if (strip < 0)
    strip = 0;
  size_t plen = prefix ? strlen(prefix) : 0;
  if (plen && prefix[plen - 1] == '/')
    plen--;
  if (!plen && strip && !clang) {
    prefix = ".";
    plen = 1;
  }
  if (!plen || fname[0] != '/')
    return snprintf(out, outlen, "%s", fname) < (int)outlen ? 0 : -ENAMETOOLONG;
  /* Drop `strip` leading directories: each one ends at the next '/'. */
  const char *rest = fname;
  for (const char *p = fname + 1; *p && strip; p++) {
    if (*p == '/') {
      rest = p;
      strip--;
    }
  }
  return snprintf(out, outlen, "%.*s%s", (int)plen, prefix, rest) < (int)outlen ? 0 : -ENAMETOOLONG;
}

static UCOV_NOTRACE int read_all(int fd, struct ucov_mem_sink *into) {
  uint8_t buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -errno;
    if (n == 0)
      return 0;
    int err = into->sink.write(&into->sink, buf, (size_t)n);
    if (err)
      return err;
  }
}

static UCOV_NOTRACE void log_error(const char *path, const char *what) {
  char msg[PATH_MAX + 512];
  snprintf(msg, sizeof(msg), "ucov: gcov: %s: %.300s", path, what);
  ucov_port_log(msg);
}

/*
 * Open (creating directories and the file as needed) and lock the .gcda of
 * `fname`, and read what it holds into old: at most max_old bytes, and only
 * after its first word says it is a .gcda (a 1 GiB junk file, or a link to
 * /dev/zero, is refused at once and left alone). Returns the descriptor or -1.
 */
static UCOV_NOTRACE int open_gcda(const char *fname, int clang, char *path, size_t pathlen,
                                  struct ucov_mem_sink *old, uint64_t max_old) {
  if (gcda_path(fname, clang, path, pathlen)) {
    log_error(fname, "path too long");
    return -1;
  }
  struct stat st;
  const char *why;
  int fd = ucov_posix_open_locked(path, &st, &why);
  if (fd < 0) {
    log_error(path, why ? why : strerror(errno));
    return -1;
  }
  uint32_t magic = 0; /* .gcda words are in the host's order */
  int err = 0;
  if (st.st_size > 0 &&
      (st.st_size < 4 || pread(fd, &magic, 4, 0) != 4 || magic != GCOV_DATA_MAGIC)) {
    log_error(path, "not a gcov data file: left alone");
    err = 1;
  } else if ((uint64_t)st.st_size > max_old) {
    log_error(path, "larger than any .gcda of this unit: left alone");
    err = 1;
  } else if ((err = read_all(fd, old)) != 0) {
    log_error(path, strerror(-err));
  }
  if (err) {
    close(fd);
    return -1;
  }
  return fd;
}

/* The most an existing .gcda of a unit can hold: what the unit writes, with
 * room for the other programs' functions and TOPN lists it keeps. */
static UCOV_NOTRACE uint64_t max_old_size(uint64_t own) {
  return 16 * own + (1u << 20);
}

/* Merge unit u into its .gcda file, as libgcov (compiler-rt for a clang
 * unit) does; kept: what the keeper notes of it when it lands. */
static UCOV_NOTRACE void dump_unit(const struct ucov_unit *u, const struct ucov_units_dump *d,
                                   int kept) {
  char path[PATH_MAX];
  struct ucov_mem_sink old, out;
  ucov_mem_sink_init(&old);
  ucov_mem_sink_init(&out);
  int fd = open_gcda(u->filename, u->llvm, path, sizeof(path), &old,
                     max_old_size(ucov_unit_size_bound(u)));
  if (fd >= 0 && ucov_posix_keep_begin(0, u->base, path, kept)) {
    char msg[128];
    int err = ucov_unit_write(&out.sink, u, d, old.data, old.len, msg, sizeof(msg));
    if (msg[0])
      log_error(path, msg); /* as libgcov: a warning, or why the file stays */
    if (!err)
      err = ucov_posix_replace(path, out.data, out.len, 0644, ucov_posix_keep_made);
    if (err < 0)
      log_error(path, strerror(-err));
    ucov_posix_keep_end(err == 0);
  }
  if (fd >= 0)
    close(fd); /* releases the lock */
  ucov_mem_sink_free(&old);
  ucov_mem_sink_free(&out);
}

/* Write dir/name from a filled sink, atomically, creating directories,
 * beneath dir with no link followed (a pull into the same tree made .gcno
 * links there). 0 or -1. */
static UCOV_NOTRACE int write_tree_file(const char *dir, const char *name,
                                        struct ucov_mem_sink *s) {
  mkdir(dir, 0755);
  if (ucov_at_replace(dir, name, s->data, s->len, ucov_posix_keep_made) != 0) {
    int err = errno;
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
      snprintf(path, sizeof(path), "%s", name);
    log_error(path, strerror(err));
    return -1;
  }
  return 0;
}

/*
 * `ucov run` sets UCOV_EXIT_DIR: the exit dump is a last pull into that
 * directory (gcov/<path>.gcda and modules), not a merge into build files.
 */
static UCOV_NOTRACE void tree_unit(const char *dir, const struct ucov_unit *u,
                                   const struct ucov_units_dump *d, int kept) {
  char name[UCOV_OBJECT_NAME_MAX], path[PATH_MAX];
  struct ucov_mem_sink s;
  ucov_mem_sink_init(&s);
  if (!ucov_unit_name(u, name, sizeof(name)) &&
      snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path) &&
      ucov_posix_keep_begin(0, u->base, path, kept)) {
    int err = ucov_unit_write(&s.sink, u, d, NULL, 0, NULL, 0);
    ucov_posix_keep_end(err == 0 && write_tree_file(dir, name, &s) == 0);
  }
  ucov_mem_sink_free(&s);
}

/* A unit that cannot be kept when its module goes (no memory): merged into
 * the tree's file, so that every load of a library adds up there. */
static UCOV_NOTRACE void merge_tree_unit(const char *dir, const struct ucov_unit *u,
                                         const struct ucov_units_dump *d) {
  char name[UCOV_OBJECT_NAME_MAX];
  if (ucov_unit_name(u, name, sizeof(name)))
    return;
  struct ucov_mem_sink old, out;
  ucov_mem_sink_init(&old);
  ucov_mem_sink_init(&out);
  int fd = ucov_at_open(dir, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0, 0);
  struct stat st;
  if (fd >= 0 &&
      (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
       (uint64_t)st.st_size > max_old_size(ucov_unit_size_bound(u)) || read_all(fd, &old) != 0))
    old.len = 0; /* not a file of ours: replaced */
  if (fd >= 0)
    close(fd);
  char msg[128];
  if (ucov_unit_write(&out.sink, u, d, old.data, old.len, msg, sizeof(msg)) == 0)
    write_tree_file(dir, name, &out);
  ucov_mem_sink_free(&old);
  ucov_mem_sink_free(&out);
}

static UCOV_NOTRACE void dump_tree(const char *dir, const struct ucov_units_dump *d, int kept) {
  struct ucov_unit u = {0};
  while (ucov_unit_next(&u))
    tree_unit(dir, &u, d, kept);
  struct ucov_mem_sink s;
  ucov_mem_sink_init(&s);
  if (ucov_port_modules_write(&s.sink) == 0)
    write_tree_file(dir, "modules", &s);
  ucov_mem_sink_free(&s);
}

UCOV_NOTRACE void ucov_port_gcov_dump(int at_exit) {
  if (ucov_posix_counters_borrowed())
    return; /* a forked child's counts are in the counters it shares: not its to write */
  const char *tree = secure_getenv("UCOV_EXIT_DIR");
  int in_tree = tree && *tree;
  struct ucov_units_dump d;
  ucov_units_dump_begin(&d, at_exit ? UCOV_UNIT_RESET : 0, in_tree);
  if (!in_tree && ucov_posix_keep_run_counted())
    d.new_run = 0; /* (the keeper finishing the owner's run in its files) */
  /* (a dump in place is followed by the exit's: its units are not done) */
  int kept = at_exit != 2;
  int saved = errno;
  if (in_tree) {
    dump_tree(tree, &d, kept);
  } else {
    struct ucov_unit u = {0};
    while (ucov_unit_next(&u))
      dump_unit(&u, &d, kept);
  }
  ucov_posix_keep_dumped();
  if (at_exit)
    ucov_posix_exit_written(UCOV_POSIX_EXITED_GCOV);
  errno = saved;
}

/*
 * A shared object built by `ucov cc -shared` goes away (dlclose, or the end of
 * the process): its destructor (libucov-dso.a, after the object's other
 * destructors) calls this. Its gcov units are retired: their counts stay
 * served (added up with every other load of the same library) until a pull
 * takes them, and the exit writes them. Units that cannot be kept (no
 * memory) are written now, as the object's own libgcov would write them
 * (into UCOV_EXIT_DIR merged with the file there), and forgotten. After the
 * exit dump (a program's runtime writes before the libraries' destructors
 * run) they are written too: the exit dump moved their baselines, so what
 * is added is what those destructors counted, in no new run. Its LLVM
 * profile is written now.
 */
UCOV_EXPORT UCOV_NOTRACE void ucov_dso_unload(const void *anchor) {
  uintptr_t base = ucov_posix_module_base(anchor);
  if (!base)
    return;
  ucov_port_lock();
  int exited = ucov_gcov_exited(), write = !ucov_posix_counters_borrowed();
  const char *tree = secure_getenv("UCOV_EXIT_DIR");
  int in_tree = tree && *tree;
  struct ucov_units_dump d;
  ucov_units_dump_begin(&d, UCOV_UNIT_RESET, 0);
  int saved = errno;
  struct ucov_unit u = {0};
  while (ucov_unit_next(&u)) {
    if (ucov_posix_module_base(u.anchor) != base)
      continue;
    if (write && !exited && ucov_unit_retire(&u) == 0) {
      u = (struct ucov_unit){0}; /* (a retired unit's anchor is no longer in the module) */
      continue;
    }
    if (write && in_tree)
      merge_tree_unit(tree, &u, &d);
    else if (write)
      dump_unit(&u, &d, 0);
    ucov_unit_remove(&u);
  }
  errno = saved;
  ucov_port_unlock();
  ucov_pgo_module_unload(base);
}
