/* SPDX-License-Identifier: MIT */
/*
 * ucov cc --afl: a target that afl-fuzz drives itself, with no AFL++
 * compiler. Before main, the maps afl-fuzz made are attached (its edge map,
 * __AFL_SHM_ID; under cmplog, its comparison log, __AFL_CMPLOG_SHM_ID), and
 * when afl-fuzz's pipes are there the process becomes the fork server of
 * AFL++'s protocol: the option handshake (map size, the new cmplog), then
 * for each request a fork, the child's pid and its wait status. The
 * children run the program on one input (persistent mode, __AFL_LOOP: many,
 * stopping themselves between inputs); the fork server serves ucov's control
 * socket (ls, pull, reset) for the campaign. Deferred (__AFL_INIT), it
 * starts where the program says. Run outside afl-fuzz, the program runs as
 * it is, its hooks counting into a private map. include/ucov/afl.h has the
 * program's side.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "posix.h"
#include "ucov/port/afl.h"

static uint8_t private_area[UCOV_AFL_MAP_MAX]; /* (pages touched only where counted) */
uint8_t *ucov_afl_area = private_area;
uint32_t ucov_afl_pc_mask = UCOV_AFL_PC_MAP - 1;
struct ucov_afl_cmp_map *ucov_afl_cmp;
uint32_t ucov_afl_guard_limit = UCOV_AFL_MAP_MAX; /* (also the size of ucov_afl_area) */

/* The test case in shared memory (__AFL_FUZZ_TESTCASE_BUF): its length,
 * then its bytes; the program's __AFL_FUZZ_INIT() defines the flag. */
static uint32_t fuzz_len_alone;
UCOV_EXPORT unsigned int *__afl_fuzz_len = &fuzz_len_alone;
UCOV_EXPORT unsigned char *__afl_fuzz_ptr;
extern int __afl_sharedmem_fuzzing __attribute__((weak));

static int persistent; /* afl-fuzz found the persistent signature: __AFL_PERSISTENT */

/* The map's size to ask for: every guard's index (0 unused), in whole
 * 64-byte lines as afl-fuzz rounds it; a build without guards (gcc's
 * trace-pc) hashes PCs into UCOV_AFL_PC_MAP. */
static UCOV_NOTRACE uint32_t map_size(void) {
  uint32_t guards = ucov_afl_guards();
  if (!guards)
    return UCOV_AFL_PC_MAP;
  uint64_t size = ((uint64_t)guards + 1 + 63) / 64 * 64;
  return size > UCOV_AFL_MAP_MAX ? UCOV_AFL_MAP_MAX : (uint32_t)size;
}

/* A System V segment named by an environment variable, of at least min
 * bytes: its address; NULL if the variable is not set; (void *)-1 if it
 * cannot be attached. *small: it is there but smaller than min; *size: its
 * size (0 if none). */
static UCOV_NOTRACE void *attach_sized(const char *var, size_t min, int *small, size_t *size) {
  const char *s = getenv(var);
  *small = 0;
  *size = 0;
  if (!s || !*s)
    return NULL;
  char *end;
  errno = 0;
  long id = strtol(s, &end, 10);
  struct shmid_ds ds;
  if (errno || *end || id < 0 || id > 0x7fffffff || shmctl((int)id, IPC_STAT, &ds) != 0)
    return (void *)-1;
  *size = ds.shm_segsz;
  if (ds.shm_segsz < min) {
    *small = 1;
    return NULL;
  }
  return shmat((int)id, NULL, 0);
}

static UCOV_NOTRACE void *attach(const char *var, size_t min, int *small) {
  size_t size;
  return attach_sized(var, min, small, &size);
}

static UCOV_NOTRACE void say(const char *what) {
  static const char head[] = "ucov: afl: ";
  (void)!write(2, head, sizeof head - 1);
  (void)!write(2, what, strlen(what));
  (void)!write(2, "\n", 1);
}

/* Are afl-fuzz's pipes there (not descriptors of the program's own)? */
static UCOV_NOTRACE int under_afl(void) {
  struct stat a, b;
  return fstat(UCOV_AFL_FD_CTL, &a) == 0 && fstat(UCOV_AFL_FD_ST, &b) == 0 && S_ISFIFO(a.st_mode) &&
         S_ISFIFO(b.st_mode);
}

/* Tell afl-fuzz why the fork server cannot start (it prints the reason)
 * and end; run alone, say it and go on with the private maps. */
static UCOV_NOTRACE void fail(uint32_t error, const char *what) {
  uint32_t word = UCOV_AFL_OPT_ERROR | UCOV_AFL_SET_ERROR(error);
  say(what);
  if (!under_afl())
    return;
  (void)!write(UCOV_AFL_FD_ST, &word, 4);
  _exit(1);
}

/* 0, -2 (a signal came: the caller looks at it) or -1. */
static UCOV_NOTRACE int read4(int fd, uint32_t *v) {
  ssize_t n = read(fd, v, 4);
  return n == 4 ? 0 : n < 0 && errno == EINTR ? -2 : -1;
}

static UCOV_NOTRACE int write4(uint32_t v) {
  ssize_t n;
  while ((n = write(UCOV_AFL_FD_ST, &v, 4)) < 0 && errno == EINTR)
    ;
  return n == 4 ? 0 : -1;
}

static volatile sig_atomic_t stopping;
static UCOV_NOTRACE void on_term(int sig) {
  (void)sig;
  stopping = 1;
}

/* The fork server's loop: returns in each child, never in the server. A
 * persistent child stops itself (SIGSTOP) after each input: the next
 * request continues it, unless afl-fuzz killed it meanwhile. */
static UCOV_NOTRACE void serve(void) {
  struct sigaction term = {.sa_handler = on_term}, old_term, old_chld;
  sigemptyset(&term.sa_mask); /* (no SA_RESTART: a blocked read or wait sees it) */
  sigaction(SIGTERM, &term, &old_term);
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  sigaction(SIGCHLD, &dfl, &old_chld);
  ucov_posix_fork_server = (int)getpid();
  ucov_posix_control_start_now(); /* the campaign's counters, served by the fork server */
  pid_t child = -1;
  int stopped = 0;
  for (;;) {
    uint32_t was_killed;
    int r = stopping ? -2 : read4(UCOV_AFL_FD_CTL, &was_killed);
    if (r == -2 && !stopping)
      continue;
    if (r != 0)
      break;                     /* afl-fuzz stopped (SIGTERM) or went away (the pipe) */
    if (stopped && was_killed) { /* killed while stopped: reap it, fork anew */
      stopped = 0;
      while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
    }
    if (stopped) {
      stopped = 0;
      kill(child, SIGCONT);
    } else if ((child = fork()) < 0) {
      say("fork failed");
      break;
    } else if (child == 0) { /* an execution: the program runs on */
      close(UCOV_AFL_FD_CTL);
      close(UCOV_AFL_FD_ST);
      sigaction(SIGTERM, &old_term, NULL);
      sigaction(SIGCHLD, &old_chld, NULL);
      return;
    }
    int status = 0;
    if (write4((uint32_t)child) != 0)
      break;
    while (waitpid(child, &status, persistent ? WUNTRACED : 0) < 0)
      if (errno != EINTR)
        goto out;
      else if (stopping)
        kill(child, SIGKILL);
    if (WIFSTOPPED(status))
      stopped = 1;
    else
      child = -1;
    if (write4((uint32_t)status) != 0)
      break;
  }
out:
  if (child > 0) {
    kill(child, SIGKILL);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
      ;
  }
  exit(0); /* normally: the exit files and the control socket's end */
}

/* afl-fuzz's maps, once: the edge map if it is big enough for our
 * guards (else afl-fuzz's first look, before it knows our size: the
 * private map stays), the comparison log under cmplog. */
static UCOV_NOTRACE uint32_t attach_maps(void) {
  static uint32_t size;
  if (size)
    return size;
  size = map_size();
  int small;
  void *area = attach("__AFL_SHM_ID", size, &small);
  if (area == (void *)-1)
    fail(UCOV_AFL_ERROR_SHMAT, "cannot attach __AFL_SHM_ID");
  if (area && area != (void *)-1) {
    UCOV_STORE(&ucov_afl_area, (uint8_t *)area);
    UCOV_STORE(&ucov_afl_guard_limit, size);
    uint32_t pc = 1;
    while (pc * 2 <= size && pc * 2 <= UCOV_AFL_PC_MAP)
      pc *= 2;
    UCOV_STORE(&ucov_afl_pc_mask, pc - 1);
  }
  /* The comparison log's layout is afl-fuzz's: its segment's size says which
   * (ucov/port/afl.h). One this log does not write is refused, with
   * afl-fuzz's own code for cmplog it cannot read: the fork server does not
   * start, rather than fill a log afl-fuzz would read wrong. */
  size_t cmp_size;
  void *cmp =
      attach_sized("__AFL_CMPLOG_SHM_ID", sizeof(struct ucov_afl_cmp_map), &small, &cmp_size);
  if (cmp_size && cmp_size != sizeof(struct ucov_afl_cmp_map)) {
    char why[200];
    snprintf(why, sizeof(why),
             "afl-fuzz's comparison log (__AFL_CMPLOG_SHM_ID) is %zu bytes, not the %zu of the "
             "layout ucov writes (AFL++ 4.0 to 4.10c): cmplog with this afl-fuzz is refused",
             cmp_size, sizeof(struct ucov_afl_cmp_map));
    if (cmp && cmp != (void *)-1)
      shmdt(cmp);
    fail(UCOV_AFL_ERROR_OLD_CMPLOG, why);
    cmp = NULL;
  } else if (cmp == (void *)-1 || small) {
    fail(UCOV_AFL_ERROR_SHMAT, "cannot attach __AFL_CMPLOG_SHM_ID");
  }
  if (cmp && cmp != (void *)-1)
    UCOV_STORE(&ucov_afl_cmp, (struct ucov_afl_cmp_map *)cmp);
  return size;
}

/* The handshake, then the fork server: returns in each execution, or at
 * once when afl-fuzz is not there. */
static UCOV_NOTRACE void start(void) {
  static int started;
  if (started)
    return;
  started = 1;
  uint32_t size = attach_maps();
  persistent = getenv("__AFL_PERSISTENT") != NULL;
  if (!under_afl())
    return; /* not under afl-fuzz: run once */
  int shmem = &__afl_sharedmem_fuzzing && __afl_sharedmem_fuzzing;
  uint32_t hello = UCOV_AFL_OPT_ENABLED | UCOV_AFL_OPT_NEWCMPLOG | UCOV_AFL_OPT_MAPSIZE |
                   UCOV_AFL_SET_MAPSIZE(size) | (shmem ? UCOV_AFL_OPT_SHDMEM_FUZZ : 0);
  if (write4(hello) != 0)
    return;    /* nobody listens: run once */
  if (shmem) { /* afl-fuzz answers with the options it takes */
    uint32_t reply;
    if (read4(UCOV_AFL_FD_CTL, &reply) != 0)
      _exit(1);
    if ((reply & (UCOV_AFL_OPT_ENABLED | UCOV_AFL_OPT_SHDMEM_FUZZ)) ==
        (UCOV_AFL_OPT_ENABLED | UCOV_AFL_OPT_SHDMEM_FUZZ)) {
      int small;
      uint8_t *in = attach("__AFL_SHM_FUZZ_ID", 5, &small);
      if (!in || in == (void *)-1) {
        fail(UCOV_AFL_ERROR_SHM_OPEN, "cannot attach __AFL_SHM_FUZZ_ID");
        _exit(1); /* (afl-fuzz writes the inputs there: none would come) */
      }
      __afl_fuzz_len = (unsigned int *)(void *)in;
      __afl_fuzz_ptr = in + 4;
    }
  }
  serve();
}

/* __AFL_INIT(): the fork server starts here (afl-fuzz set
 * __AFL_DEFER_FORKSRV, having found the signature), or already ran. */
UCOV_EXPORT UCOV_NOTRACE void __afl_manual_init(void) {
  start();
}

/*
 * __AFL_LOOP(n): true n times in a persistent execution, which stops
 * itself between inputs (the fork server continues it); once outside
 * afl-fuzz. The edges of the first input are its own: what ran before the
 * loop is cleared; what runs after the loop counts into the private map.
 */
UCOV_EXPORT UCOV_NOTRACE int __afl_persistent_loop(unsigned int max) {
  static int first = 1;
  static unsigned int left;
  if (first) {
    first = 0;
    left = max;
    if (persistent) {
      memset(UCOV_LOAD(&ucov_afl_area), 0, UCOV_LOAD(&ucov_afl_guard_limit));
      ucov_afl_forget_prev();
    }
    return 1;
  }
  if (!persistent)
    return 0;
  if (--left) {
    raise(SIGSTOP);
    ucov_afl_forget_prev();
    return 1;
  }
  UCOV_STORE(&ucov_afl_area, private_area);
  return 0;
}

/*
 * After the runtime's own constructors (101) and the modules' guard
 * numbering (the compiler's, priority 2), before the program's others: each
 * execution runs those, as under AFL++'s own runtime. Deferred: only the
 * maps here.
 */
__attribute__((constructor(102))) static UCOV_NOTRACE void afl_start(void) {
  attach_maps();
  if (!getenv("__AFL_DEFER_FORKSRV"))
    start();
}
