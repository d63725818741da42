/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: the module map. Every loadable segment of every loaded module,
 * with its file offset, load bias, path and GNU build-id, so that a PC taken
 * under PIE and ASLR becomes (module, ELF address) on the host.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ucov/port/compiler.h"
#include "ucov/port/sink.h"
#include "memsink.h"
#include "posix.h"
#include "ucov/port/port.h"
#include "ucov/ucov.h"

struct modules_walk {
  int (*fn)(const struct ucov_module *m, void *arg);
  void *arg;
  int ret;
  char exe[PATH_MAX];
};

/* The GNU build-id note of a module, if it has one. */
static UCOV_NOTRACE const uint8_t *find_build_id(const struct dl_phdr_info *info, size_t *size) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
    const uint8_t *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
      const uint8_t *name = p + sizeof(*nh);
      const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
      const uint8_t *next = desc + ((nh->n_descsz + 3) & ~3u);
      if (next > end)
        break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
        *size = nh->n_descsz;
        return desc;
      }
      p = next;
    }
  }
  *size = 0;
  return NULL;
}

static UCOV_NOTRACE int module_cb(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct modules_walk *w = data;
  const char *path = info->dlpi_name;
  if (!path || !*path) {
    /* The executable: dl_iterate_phdr names it "". */
    if (!w->exe[0]) {
      ssize_t n = readlink("/proc/self/exe", w->exe, sizeof(w->exe) - 1);
      w->exe[n > 0 ? n : 0] = 0;
    }
    path = w->exe;
  }
  struct ucov_module m = {0};
  m.path = path;
  m.bias = info->dlpi_addr;
  m.build_id = find_build_id(info, &m.build_id_size);
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    m.start = info->dlpi_addr + ph->p_vaddr;
    m.end = m.start + ph->p_memsz;
    m.offset = ph->p_offset;
    m.prot = ((ph->p_flags & PF_R) ? PROT_READ : 0) | ((ph->p_flags & PF_W) ? PROT_WRITE : 0) |
             ((ph->p_flags & PF_X) ? PROT_EXEC : 0);
    w->ret = w->fn(&m, w->arg);
    if (w->ret)
      return w->ret;
  }
  return 0;
}

UCOV_EXPORT UCOV_NOTRACE int ucov_modules(int (*fn)(const struct ucov_module *m, void *arg),
                                          void *arg) {
  struct modules_walk w = {.fn = fn, .arg = arg};
  dl_iterate_phdr(module_cb, &w);
  return w.ret;
}

/* Formats one line of the module map and hands it to the sink in arg. */
static UCOV_NOTRACE int sink_module_line(const struct ucov_module *m, void *arg) {
  struct ucov_sink *sink = arg;
  char line[PATH_MAX + 256];
  char id[2 * 64 + 1] = "-";
  if (m->build_id && m->build_id_size <= 64) {
    for (size_t i = 0; i < m->build_id_size; i++)
      snprintf(id + 2 * i, 3, "%02x", m->build_id[i]);
  }
  int n =
      snprintf(line, sizeof(line), "0x%lx 0x%lx 0x%lx 0x%lx %c%c%c %s %s\n",
               (unsigned long)m->start, (unsigned long)m->end, (unsigned long)m->offset,
               (unsigned long)m->bias, (m->prot & PROT_READ) ? 'r' : '-',
               (m->prot & PROT_WRITE) ? 'w' : '-', (m->prot & PROT_EXEC) ? 'x' : '-', id, m->path);
  if (n < 0 || (size_t)n >= sizeof(line))
    return -ENAMETOOLONG;
  return sink->write(sink, line, (size_t)n);
}

UCOV_NOTRACE int ucov_port_modules_write(struct ucov_sink *sink) {
  return ucov_modules(sink_module_line, sink);
}

UCOV_EXPORT UCOV_NOTRACE int ucov_modules_write(int fd) {
  struct ucov_fd_sink s;
  ucov_fd_sink_init(&s, fd);
  int err = ucov_modules(sink_module_line, &s.sink);
  if (err) {
    errno = -err;
    return -1;
  }
  return 0;
}

/*
 * The modules' address ranges, read once with dl_iterate_phdr and again only
 * when a module was loaded or unloaded since (the loader's adds and subs
 * counters say so). dladdr, used before, looks for the nearest symbol, which
 * scans a module's exported symbols: a program built by `ucov cc` exports
 * many, and every gcov unit's __gcov_exit asked twice (17.8M instructions at
 * the exit of Redis).
 */
struct module_range {
  uintptr_t start, end, base; /* a PT_LOAD segment, and its module's first one */
};
static struct module_range *ranges;
static size_t n_ranges, cap_ranges;
static unsigned long long ranges_adds = ~0ull, ranges_subs = ~0ull;
static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;

struct ranges_scan {
  unsigned long long adds, subs; /* the loader's counters */
  int failed;
};

static UCOV_NOTRACE int counters_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  struct ranges_scan *sc = arg;
  (void)size;
  sc->adds = info->dlpi_adds;
  sc->subs = info->dlpi_subs;
  return 1; /* the first module says it for all */
}

static UCOV_NOTRACE int ranges_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  struct ranges_scan *sc = arg;
  (void)size;
  uintptr_t base = ~(uintptr_t)0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) {
      uintptr_t a = (uintptr_t)info->dlpi_addr + (uintptr_t)info->dlpi_phdr[i].p_vaddr;
      a &= ~(uintptr_t)4095;
      if (a < base)
        base = a;
    }
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    if (n_ranges == cap_ranges) {
      size_t cap = cap_ranges ? 2 * cap_ranges : 64;
      struct module_range *g = realloc(ranges, cap * sizeof(*g));
      if (!g) {
        sc->failed = 1;
        return 1;
      }
      ranges = g;
      cap_ranges = cap;
    }
    uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
    ranges[n_ranges++] = (struct module_range){start, start + ph->p_memsz, base};
  }
  return 0;
}

UCOV_NOTRACE uintptr_t ucov_posix_module_base(const void *p) {
  if (!p)
    return 0;
  struct ranges_scan sc = {0, 0, 0};
  dl_iterate_phdr(counters_cb, &sc);
  uintptr_t a = (uintptr_t)p, base = 0;
  pthread_mutex_lock(&ranges_lock);
  if (sc.adds != ranges_adds || sc.subs != ranges_subs) {
    n_ranges = 0;
    dl_iterate_phdr(ranges_cb, &sc);
    ranges_adds = sc.failed ? ~0ull : sc.adds;
    ranges_subs = sc.failed ? ~0ull : sc.subs;
  }
  for (size_t i = 0; i < n_ranges && !base; i++)
    if (a >= ranges[i].start && a < ranges[i].end)
      base = ranges[i].base;
  pthread_mutex_unlock(&ranges_lock);
  return base;
}

UCOV_NOTRACE int ucov_port_same_module(const void *a, const void *b) {
  uintptr_t ma = ucov_posix_module_base(a);
  return ma == 0 || ma == ucov_posix_module_base(b);
}

#ifdef UCOV_STATIC_RUNTIME
UCOV_NOTRACE int ucov_posix_runtime_active(void) {
  return 1;
}
#else
UCOV_NOTRACE int ucov_posix_runtime_active(void) {
  static int active = -1;
  int a = __atomic_load_n(&active, __ATOMIC_RELAXED);
  if (a < 0) {
    /* Where ucov_open binds for everyone: here (or nowhere: dlopen'ed with
     * RTLD_LOCAL), or in another module, which has the runtime then. */
    uintptr_t there = ucov_posix_module_base(dlsym(RTLD_DEFAULT, "ucov_open"));
    uintptr_t here = ucov_posix_module_base((const void *)&ucov_posix_runtime_active);
    a = !there || !here || there == here;
    __atomic_store_n(&active, a, __ATOMIC_RELAXED);
  }
  return a;
}
#endif
