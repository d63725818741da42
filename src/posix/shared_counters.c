/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: profile counters shared across fork (ucov cc --shared-counters,
 * on by itself for AFL++'s compilers and libFuzzer). With --gcov, ucov cc
 * compiles with -fdata-sections and links with ucov-counters.ld, which
 * gathers every gcov counter array (gcc's .bss.__gcov0.*, clang's
 * .bss.__llvm_gcov_ctr*) into the page-aligned section ucov_counters; with
 * --pgo, ucov-prf-counters.ld puts clang's __llvm_prf_cnts (and MC/DC
 * bitmaps) on pages of their own. Before any constructor runs, those
 * pages are mapped shared (a memfd), so a forked child counts into the
 * memory of the process that started, the owner: a fuzzer's forkserver holds
 * every execution's counts, a child killed for a timeout or a crash
 * included, and nothing is written per execution. Only the owner writes
 * exit files and resets on fork; its children write none (their counts are
 * its).
 *
 * A fuzzer stops its forkserver with SIGKILL (AFL++'s own SIGTERM handler
 * leaves by _exit too): no exit code runs in it. So the owner starts, before
 * any constructor, a keeper that shares the counters and sleeps; the owner
 * tells it each unit it registers whose counters are in the shared pages
 * (their descriptions are the same static data at the same addresses in
 * both: a library dlopen'ed later is not mapped in the keeper, its counters
 * are private, and it is not told). When the owner dies, the keeper
 * registers those units and writes what the owner's exit would have written
 * at that instant: each unit the owner's files do not hold yet.
 *
 * The keeper is a grandchild (its parent exits at once), so a program that
 * waits for all of its children never waits for it, and it learns of the
 * owner's death through a pidfd of the owner's own (inherited: no pid is
 * looked up again). Without pidfds (Linux before 5.3) it stays a child and
 * learns it by PR_SET_PDEATHSIG.
 *
 * What the files hold, per unit: `written` (a dump that leaves the exit
 * nothing to add, __gcov_dump or the exit's own, landed this unit; cleared
 * when the exit would write it again: __gcov_reset, a dump in place). A
 * unit's write is bracketed (ucov_posix_keep_begin .. _end): the landing
 * record names the unit, its path and, once the new file is made, that
 * file's identity; a baseline the write moves is copied then but published
 * only at the end. The owner killed inside the bracket: the keeper looks at
 * the path, and the write landed if and only if the file there is the one
 * made (its rename happened).
 *
 * Resets: a read is live minus the unit's baseline, which a reset moves
 * (core/baseline.h), in the owner's private memory. So each time a gcov
 * unit's baseline moves, the owner copies it into shared pages made before
 * the keeper (two buffers per unit, the one written then published by a
 * generation count: a copy cut short by SIGKILL is never used), and the
 * keeper starts each unit it registers from the last published baseline:
 * its exit files hold what no reset took (ucov collect's rounds), not
 * everything since the start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "posix.h"
#include "ucov/port/gcov_abi.h"
#include "ucov/port/port.h"
#include "ucov/port/pgo.h"
#include "ucov/port/units.h"

/* (defined by ucov-counters.ld, and by ucov-prf-counters.ld for --pgo) */
extern char __ucov_counters_start[] __attribute__((weak, visibility("hidden")));
extern char __ucov_counters_end[] __attribute__((weak, visibility("hidden")));
extern char __ucov_prf_start[] __attribute__((weak, visibility("hidden")));
extern char __ucov_prf_end[] __attribute__((weak, visibility("hidden")));

void __gcov_init(void *info);
void llvm_gcov_init(void (*writeout)(void), void (*reset)(void));

/* What the owner tells its keeper, in shared pages of their own. */
#define KEEP_UNITS 4000
#define KEEP_PGO 64
#define KEEP_NONE 0xffffffffu
enum { LAND_GCOV = 1, LAND_PGO = 2 };
struct keep {
  volatile uint32_t n;           /* units[0..n) */
  volatile uint32_t run_counted; /* a dump of the owner's counted this run */
  struct {
    uint32_t kind;
    uint32_t written; /* the owner's files hold it: the keeper leaves it */
    void *a, *b;
    /* its last baseline: gen published copies (0: none; buffer gen & 1),
     * n counters at bases + off (two buffers, 0: none yet) */
    uint64_t gen, n, off;
  } units[KEEP_UNITS];
  uint64_t used; /* bytes of bases given out */
  /* an LLVM profile's counters' baseline: at pgo_bases + cnts (its
   * counters' offset in the shared section) + gen & 1 sections */
  struct {
    uint64_t cnts, n, gen;
    uint32_t written;
  } pgo[KEEP_PGO];
  /* The one write in flight (writes are made under the port lock, or by
   * the exit alone). kind 0: none. The fields are set before kind, and kind
   * is cleared last. */
  struct {
    volatile uint32_t kind, i; /* LAND_GCOV: units[i]; LAND_PGO: pgo[i] */
    uint32_t written_after;    /* what `written` becomes if it lands */
    uint32_t moved;            /* its baseline moved: gen_after holds it */
    uint64_t gen_after;
    volatile uint64_t dev, ino; /* the file made (ino 0: not yet) */
    char path[PATH_MAX];
  } landing;
};

static pid_t owner; /* the process that mapped the counters (0: not shared) */
static struct keep *keep;
static uint64_t *bases;      /* the published baselines (shared) */
static size_t bases_bytes;   /* their pages: twice the counters' */
static uint64_t *pgo_bases;  /* the same for LLVM profiles: two copies of the section */
static int replaying;        /* the keeper registers the owner's units */
static uint32_t replay_i;    /* the unit it registers */
static int owner_pidfd = -1; /* the keeper's: readable once the owner is gone */
static int told;             /* the unit just told is kept: its baseline comes next */

static uint32_t pgo_entry(uint64_t off, uint64_t n, int add);
static int64_t pgo_offset(const struct ucov_llvm_sections *s);
/* each unit's baseline in this process (the owner's, or the keeper's own) */
static struct ucov_baseline *unit_base[KEEP_UNITS];

/* A shared mapping of n bytes at want (NULL: anywhere) holding what is there
 * now; its address, or NULL. */
static UCOV_NOTRACE void *map_shared(void *want, size_t n) {
  int fd = memfd_create("ucov-counters", MFD_CLOEXEC);
  void *copy = MAP_FAILED, *at = NULL;
  if (fd >= 0 && ftruncate(fd, (off_t)n) == 0)
    copy = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (copy != MAP_FAILED && want) {
    memcpy(copy, want, n); /* (counts of code run before: none, or a constructor's) */
    at = mmap(want, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    at = at == MAP_FAILED ? NULL : at;
    munmap(copy, n);
  } else if (copy != MAP_FAILED) {
    at = copy;
  }
  if (fd >= 0)
    close(fd);
  return at;
}

/* A baseline copied for the keeper, double-buffered: the owner writes the
 * buffer the keeper does not read (slot0 + stride * the next generation's
 * parity), then publishes that generation; a copy cut short by SIGKILL is
 * never read. */
static UCOV_NOTRACE void publish(uint64_t *gen, void *slot0, size_t stride, const uint64_t *v,
                                 uint64_t n, uint32_t kind, uint32_t i) {
  uint64_t g = *gen + 1;
  memcpy((char *)slot0 + (g & 1) * stride, v, n * sizeof(*v));
  if (keep->landing.kind == kind && keep->landing.i == i) {
    /* (a write in flight moved it: published when, and if, the file lands) */
    keep->landing.gen_after = g;
    keep->landing.moved = 1;
    return;
  }
  __atomic_store_n(gen, g, __ATOMIC_RELEASE);
}

/* The keeper: the copy last published there, or NULL (none). */
static UCOV_NOTRACE const uint64_t *published(const uint64_t *gen, const void *slot0,
                                              size_t stride) {
  uint64_t g = __atomic_load_n(gen, __ATOMIC_ACQUIRE);
  return g ? (const uint64_t *)(const void *)((const char *)slot0 + (g & 1) * stride) : NULL;
}

/* The keeper: unit i starts from the owner's last published baseline. */
static UCOV_NOTRACE void take_baseline(uint32_t i) {
  struct ucov_baseline *b = unit_base[i];
  uint64_t n = b ? ucov_baseline_count(b) : 0;
  const uint64_t *v =
      published(&keep->units[i].gen, (char *)bases + keep->units[i].off, n * sizeof(uint64_t));
  if (!v || !n || keep->units[i].n != n)
    return;
  (void)ucov_baseline_set(b, v, n); /* (out of memory: then from the start, more and never less) */
}

/* The write in flight when the owner died: landed if the file at its path
 * is the one it made (then as the owner would have ended it); a file made
 * and never renamed is removed. */
/* The write in flight ended: its baseline published if it moved, the unit's
 * written state what the write leaves if it landed; the record cleared. */
static UCOV_NOTRACE void landing_end(int landed) {
  uint32_t kind = keep->landing.kind, i = keep->landing.i;
  uint32_t *written = kind == LAND_GCOV ? &keep->units[i].written : &keep->pgo[i].written;
  uint64_t *gen = kind == LAND_GCOV ? &keep->units[i].gen : &keep->pgo[i].gen;
  if (keep->landing.moved)
    __atomic_store_n(gen, keep->landing.gen_after, __ATOMIC_RELEASE);
  if (landed)
    *written = keep->landing.written_after;
  __atomic_store_n(&keep->landing.kind, 0, __ATOMIC_RELEASE);
}

static UCOV_NOTRACE void settle_landing(pid_t parent) {
  if (!keep->landing.kind)
    return;
  struct stat st;
  keep->landing.path[sizeof(keep->landing.path) - 1] = 0;
  int landed = keep->landing.ino && stat(keep->landing.path, &st) == 0 &&
               (uint64_t)st.st_dev == keep->landing.dev && (uint64_t)st.st_ino == keep->landing.ino;
  if (landed) {
    landing_end(1);
    return;
  }
  if (keep->landing.ino) { /* (exitfile.c's and beneath.c's names) */
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.ucov-tmp.%d", keep->landing.path, (int)parent);
    unlink(tmp);
    snprintf(tmp, sizeof(tmp), "%s.tmp%d", keep->landing.path, (int)parent);
    unlink(tmp);
  }
  keep->landing.kind = 0; /* (not landed: the baseline the file holds stays) */
}

/* The keeper: asleep until the owner dies. */
static UCOV_NOTRACE void await_owner(pid_t parent) {
  if (owner_pidfd >= 0) {
    struct pollfd p = {.fd = owner_pidfd, .events = POLLIN};
    while (poll(&p, 1, -1) < 0 && errno == EINTR)
      ;
    return;
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  prctl(PR_SET_PDEATHSIG, SIGUSR1);
  if (getppid() == parent) {
    int sig;
    sigwait(&set, &sig);
  }
  while (getppid() == parent) /* (its thread that forked ended, not the owner) */
    usleep(100000);
}

/* The keeper: asleep until the owner dies, then what the owner's exit would
 * have written then. Never returns. */
static UCOV_NOTRACE __attribute__((noreturn)) void keeper(pid_t parent) {
  /* (no descriptor of the owner's held open, but its pidfd: a fuzzer sees
   * its pipes close) */
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
  }
  if (owner_pidfd >= 0) {
    owner_pidfd = dup2(owner_pidfd, 3) == 3 ? 3 : -1;
    close_range(4, ~0U, 0);
  } else {
    close_range(3, ~0U, 0);
  }
  await_owner(parent);
  settle_landing(parent);
  uint32_t n = keep->n;
  owner = getpid(); /* the counts are its to write now */
  replaying = 1;    /* (what it registers is not told again) */
  for (uint32_t i = 0; i < n && i < KEEP_UNITS; i++) {
    replay_i = i;
    if (keep->units[i].kind == UCOV_UNIT_FROM_GCC)
      __gcov_init(keep->units[i].a);
    else
      llvm_gcov_init((void (*)(void))keep->units[i].a, (void (*)(void))keep->units[i].b);
    take_baseline(i);
  }
  ucov_gcov_exit();
  ucov_gcov_exit_llvm();
  ucov_posix_pgo_exit();
  _exit(0);
}

/* Start the keeper: a grandchild watching the owner's pidfd, or (no pidfds)
 * a child told of the owner's death by the kernel. */
static UCOV_NOTRACE void start_keeper(void) {
  owner = getpid();
  owner_pidfd = (int)syscall(SYS_pidfd_open, owner, 0);
  if (owner_pidfd < 0) {
    if (fork() == 0) /* (no other thread yet) */
      keeper(owner);
    return;
  }
  pid_t mid = fork();
  if (mid == 0) {
    if (fork() == 0)
      keeper(owner);
    _exit(0);
  }
  while (mid > 0 && waitpid(mid, NULL, 0) < 0 && errno == EINTR)
    ;
  close(owner_pidfd);
  owner_pidfd = -1;
}

/* Whether [start, stop) is whole pages (and there). */
static UCOV_NOTRACE int whole_pages(const char *start, const char *stop, long page) {
  return start && stop > start && page > 0 && !((uintptr_t)start % (uintptr_t)page) &&
         !((uintptr_t)(stop - start) % (uintptr_t)page);
}

static UCOV_NOTRACE void share_counters(void) {
  char *gcov = __ucov_counters_start, *gcov_end = __ucov_counters_end;
  char *prf = __ucov_prf_start, *prf_end = __ucov_prf_end;
  long page = sysconf(_SC_PAGESIZE);
  int g = whole_pages(gcov, gcov_end, page), p = whole_pages(prf, prf_end, page);
  if (owner || (!g && !p))
    return; /* (not linked with the scripts, or already shared) */
  int saved = errno;
  size_t keep_bytes = (sizeof(struct keep) + (size_t)page - 1) / (size_t)page * (size_t)page;
  keep = map_shared(NULL, keep_bytes);
  /* (a unit's baseline is at most its counters: twice the section, and a
   * word a unit, holds two of each; pages are used only when written) */
  bases_bytes = g ? 2 * (size_t)(gcov_end - gcov) + 8 * KEEP_UNITS : 0;
  bases = bases_bytes ? map_shared(NULL, bases_bytes) : NULL;
  pgo_bases = p ? map_shared(NULL, 2 * (size_t)(prf_end - prf)) : NULL;
  if (keep && (!g || bases) && (!p || pgo_bases) &&
      (!g || map_shared(gcov, (size_t)(gcov_end - gcov)) == gcov) &&
      (!p || map_shared(prf, (size_t)(prf_end - prf)) == prf)) {
    start_keeper();
  } else {
    ucov_port_log("ucov: profile counters not shared across fork (kept private)");
  }
  errno = saved;
}

/* Before every constructor of the program (AFL++ starts its forkserver in
 * one); libucov.so, which cannot have a .preinit_array, at its constructor. */
#ifdef UCOV_STATIC_RUNTIME
/* (glibc passes a .preinit_array entry argc, argv and the environment, and
 * sets environ only later, in libc's own initializer, which the keeper
 * never reaches: it takes the environment here, for its LLVM_PROFILE_FILE
 * and UCOV_EXIT_DIR) */
static UCOV_NOTRACE void share_early(int argc, char **argv, char **envp) {
  (void)argc;
  (void)argv;
  if (!environ)
    environ = envp;
  share_counters();
}
__attribute__((section(".preinit_array"),
               used)) static void (*const ucov_share_early)(int, char **, char **) = share_early;
#endif
__attribute__((constructor(101))) static UCOV_NOTRACE void ucov_share_ctor(void) {
  share_counters();
}

UCOV_NOTRACE int ucov_posix_counters_borrowed(void) {
  return owner && getpid() != owner;
}

/* Are a unit's counters in the shared pages? gcc's: its first counters;
 * clang's (writeout, reset): its module is the program's. */
static UCOV_NOTRACE int unit_shared(int kind, const void *a) {
  if (kind != UCOV_UNIT_FROM_GCC)
    return ucov_port_same_module(a, __ucov_counters_start);
  const struct gcov_info *info = a;
  unsigned nc = gcov_counters_of(info->version);
  const struct gcov_info_tail *tail = nc ? gcov_info_tail(info, nc) : NULL;
  for (unsigned f = 0; tail && f < tail->n_functions; f++) {
    const struct gcov_fn_info *fn = tail->functions[f];
    if (!fn || fn->key != info)
      continue;
    const char *v = (const char *)fn->ctrs[0].values;
    return v >= __ucov_counters_start && v < __ucov_counters_end;
  }
  return 0;
}

UCOV_NOTRACE void ucov_port_unit_source(int kind, void *a, void *b) {
  told = 0;
  if (!owner || replaying || getpid() != owner || keep->n >= KEEP_UNITS || !unit_shared(kind, a))
    return;
  keep->units[keep->n].kind = (uint32_t)kind;
  keep->units[keep->n].a = a;
  keep->units[keep->n].b = b;
  __atomic_store_n(&keep->n, keep->n + 1, __ATOMIC_RELEASE);
  told = 1;
}

UCOV_NOTRACE void ucov_port_unit_baseline(struct ucov_baseline *b) {
  if (!owner)
    return;
  if (replaying) {
    if (replay_i < KEEP_UNITS)
      unit_base[replay_i] = b;
  } else if (getpid() == owner && told) {
    unit_base[keep->n - 1] = b;
  }
  told = 0;
}

/* The keeper's index of the unit whose baseline is b, or KEEP_NONE. */
static UCOV_NOTRACE uint32_t unit_index(const struct ucov_baseline *b) {
  uint32_t units = keep->n < KEEP_UNITS ? keep->n : KEEP_UNITS;
  for (uint32_t i = 0; b && i < units; i++)
    if (unit_base[i] == b)
      return i;
  return KEEP_NONE;
}

/* The owner: its exit would write every unit again. */
UCOV_NOTRACE void ucov_port_units_rearmed(void) {
  if (!owner || replaying || getpid() != owner)
    return;
  for (uint32_t i = 0; i < keep->n && i < KEEP_UNITS; i++)
    keep->units[i].written = 0;
}

UCOV_NOTRACE int ucov_posix_keep_begin(int pgo, const void *what, const char *path,
                                       int written_after) {
  if (!owner)
    return 1;
  uint32_t i = pgo ? KEEP_PGO : unit_index(what);
  if (pgo) {
    const struct ucov_llvm_sections *s = what;
    int64_t off = pgo_offset(s);
    i = off < 0 ? KEEP_PGO : pgo_entry((uint64_t)off, (uint64_t)(s->cnts_end - s->cnts), 1);
  }
  int none = pgo ? i == KEEP_PGO : i == KEEP_NONE;
  if (replaying) /* (not the owner's: the keeper writes what the owner's files lack) */
    return none ? 0 : !(pgo ? keep->pgo[i].written : keep->units[i].written);
  if (none || getpid() != owner)
    return 1;
  keep->landing.i = i;
  keep->landing.written_after = (uint32_t)written_after;
  keep->landing.moved = 0;
  keep->landing.ino = 0;
  snprintf(keep->landing.path, sizeof(keep->landing.path), "%s", path);
  __atomic_store_n(&keep->landing.kind, pgo ? LAND_PGO : LAND_GCOV, __ATOMIC_RELEASE);
  return 1;
}

UCOV_NOTRACE void ucov_posix_keep_made(int fd) {
  struct stat st;
  if (!owner || replaying || getpid() != owner || !keep->landing.kind || fstat(fd, &st))
    return;
  keep->landing.dev = (uint64_t)st.st_dev;
  __atomic_store_n(&keep->landing.ino, (uint64_t)st.st_ino, __ATOMIC_RELEASE);
}

UCOV_NOTRACE void ucov_posix_keep_end(int landed) {
  /* (a write that failed moved the baseline all the same: the owner's exit
   * counts from there too) */
  if (owner && !replaying && getpid() == owner && keep->landing.kind)
    landing_end(landed);
}

UCOV_NOTRACE void ucov_posix_keep_dumped(void) {
  if (owner && !replaying && getpid() == owner)
    keep->run_counted = 1;
}

UCOV_NOTRACE int ucov_posix_keep_run_counted(void) {
  return replaying && keep->run_counted;
}

/* The owner: a unit's baseline moved; published for the keeper. */
UCOV_NOTRACE void ucov_port_baseline_moved(const struct ucov_baseline *b) {
  const uint64_t *v = ucov_baseline_values(b);
  uint64_t n = ucov_baseline_count(b);
  if (!owner || replaying || getpid() != owner || !v || !n)
    return;
  uint32_t i = unit_index(b);
  if (i == KEEP_NONE)
    return; /* (not a unit the keeper registers) */
  uint64_t bytes = n * sizeof(uint64_t);
  if (!keep->units[i].off) { /* (offset 0 means none: the first unit starts at 8) */
    if (keep->used + 8 + 2 * bytes > bases_bytes)
      return; /* (cannot happen: a unit's baseline is its counters) */
    keep->units[i].off = keep->used + 8;
    keep->units[i].n = n;
    keep->used += 8 + 2 * bytes;
  }
  publish(&keep->units[i].gen, (char *)bases + keep->units[i].off, bytes, v, n, LAND_GCOV, i);
}

/* The profile's entry for counters at offset off of the shared section
 * (made when add), or KEEP_PGO: none. */
static UCOV_NOTRACE uint32_t pgo_entry(uint64_t off, uint64_t n, int add) {
  for (uint32_t i = 0; i < KEEP_PGO; i++)
    if (keep->pgo[i].n && keep->pgo[i].cnts == off)
      return keep->pgo[i].n == n ? i : KEEP_PGO;
  for (uint32_t i = 0; add && i < KEEP_PGO; i++)
    if (!keep->pgo[i].n) {
      keep->pgo[i].cnts = off;
      keep->pgo[i].n = n;
      return i;
    }
  return KEEP_PGO;
}

/* Where s's counters are in the shared section, or -1 (not there). */
static UCOV_NOTRACE int64_t pgo_offset(const struct ucov_llvm_sections *s) {
  const char *c = (const char *)s->cnts, *e = (const char *)s->cnts_end;
  if (!pgo_bases || c < __ucov_prf_start || e > __ucov_prf_end || e <= c)
    return -1;
  return c - __ucov_prf_start;
}

/* The owner: an LLVM profile's counters' baseline moved; published as a
 * gcov unit's is. */
UCOV_NOTRACE void ucov_port_pgo_baseline_moved(const struct ucov_llvm_sections *s) {
  const struct ucov_pgo_state *c = s->state; /* (this port gives each module its own) */
  int64_t off = pgo_offset(s);
  uint64_t n = (uint64_t)(s->cnts_end - s->cnts);
  if (!owner || replaying || getpid() != owner || off < 0 || !c || !c->base_cnts)
    return;
  uint32_t i = pgo_entry((uint64_t)off, n, 1);
  if (i == KEEP_PGO)
    return;
  publish(&keep->pgo[i].gen, (char *)pgo_bases + off, (size_t)(__ucov_prf_end - __ucov_prf_start),
          c->base_cnts, n, LAND_PGO, i);
}

/* The keeper, before it writes s's profile: its counters' baseline, the
 * owner's last published one. */
UCOV_NOTRACE void ucov_posix_keeper_pgo_base(const struct ucov_llvm_sections *s) {
  int64_t off = pgo_offset(s);
  uint64_t n = (uint64_t)(s->cnts_end - s->cnts);
  if (!replaying || off < 0)
    return;
  uint32_t i = pgo_entry((uint64_t)off, n, 0);
  const uint64_t *v = i < KEEP_PGO ? published(&keep->pgo[i].gen, (char *)pgo_bases + off,
                                               (size_t)(__ucov_prf_end - __ucov_prf_start))
                                   : NULL;
  struct ucov_pgo_state *c = s->state;
  uint64_t *base = v && c ? ucov_port_alloc(n * sizeof(*base)) : NULL;
  if (!base)
    return;
  memcpy(base, v, n * sizeof(*base));
  ucov_port_free(c->base_cnts);
  c->base_cnts = base;
  c->gen++;
}
