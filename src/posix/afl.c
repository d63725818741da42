/* SPDX-License-Identifier: MIT */
/*
 * ucov cc --afl: a target that afl-fuzz drives itself, with no AFL++
 * compiler. Before main, the maps afl-fuzz made are attached (its edge map,
 * __AFL_SHM_ID; under cmplog, its comparison log, __AFL_CMPLOG_SHM_ID), and
 * when afl-fuzz's pipes are there the process becomes the fork server of
 * AFL++'s protocol: the option handshake (map size, the new cmplog), then
 * for each request a fork, the child's pid and its wait status. The
 * children run the program on one input; the fork server serves ucov's
 * control socket (ls, pull, reset) for the campaign. Run outside afl-fuzz,
 * the program runs as it is, its hooks counting into a private map.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "afl.h"
#include "core/trace_hooks.h"
#include "posix.h"

static uint8_t private_area[UCOV_AFL_MAP_MAX]; /* (pages touched only where counted) */
uint8_t *ucov_afl_area = private_area;
uint32_t ucov_afl_pc_mask = UCOV_AFL_PC_MAP - 1;
struct ucov_afl_cmp_map *ucov_afl_cmp;
uint32_t ucov_afl_guard_limit = UCOV_AFL_MAP_MAX;

/* The map's size to ask for: every guard's index (0 unused), in whole
 * 64-byte lines as afl-fuzz rounds it; a build without guards (gcc's
 * trace-pc) hashes PCs into UCOV_AFL_PC_MAP. */
static UCOV_NOTRACE uint32_t map_size(void) {
  uint32_t guards = UCOV_LOAD(&ucov_trace_guard_next);
  if (!guards)
    return UCOV_AFL_PC_MAP;
  uint64_t size = ((uint64_t)guards + 1 + 63) / 64 * 64;
  return size > UCOV_AFL_MAP_MAX ? UCOV_AFL_MAP_MAX : (uint32_t)size;
}

/* A System V segment named by an environment variable, of at least min
 * bytes: its address; NULL if the variable is not set; (void *)-1 if it
 * cannot be attached. *small: it is there but smaller than min. */
static UCOV_NOTRACE void *attach(const char *var, size_t min, int *small) {
  const char *s = getenv(var);
  *small = 0;
  if (!s || !*s)
    return NULL;
  char *end;
  errno = 0;
  long id = strtol(s, &end, 10);
  struct shmid_ds ds;
  if (errno || *end || id < 0 || id > 0x7fffffff || shmctl((int)id, IPC_STAT, &ds) != 0)
    return (void *)-1;
  if (ds.shm_segsz < min) {
    *small = 1;
    return NULL;
  }
  return shmat((int)id, NULL, 0);
}

static UCOV_NOTRACE void say(const char *what) {
  static const char head[] = "ucov: afl: ";
  (void)!write(2, head, sizeof head - 1);
  for (const char *p = what; *p; p++)
    (void)!write(2, p, 1);
  (void)!write(2, "\n", 1);
}

/* Tell afl-fuzz why the fork server cannot start (it prints the reason). */
static UCOV_NOTRACE void fail(uint32_t error, const char *what) {
  uint32_t word = UCOV_AFL_OPT_ERROR | UCOV_AFL_SET_ERROR(error);
  say(what);
  (void)!write(UCOV_AFL_FD_ST, &word, 4);
  _exit(1);
}

static UCOV_NOTRACE int read4(int fd, uint32_t *v) {
  for (;;) {
    ssize_t n = read(fd, v, 4);
    if (n == 4)
      return 0;
    if (n < 0 && errno == EINTR)
      return -2; /* (a signal: the caller looks at it) */
    return -1;
  }
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

/* The fork server's loop: returns in each child, never in the server. */
static UCOV_NOTRACE void serve(void) {
  struct sigaction term = {.sa_handler = on_term}, old_term, old_chld;
  sigemptyset(&term.sa_mask); /* (no SA_RESTART: a blocked read or wait sees it) */
  sigaction(SIGTERM, &term, &old_term);
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  sigaction(SIGCHLD, &dfl, &old_chld);
  ucov_posix_fork_server = (int)getpid();
  ucov_posix_control_start_now(); /* the campaign's counters, served by the fork server */
  pid_t child = -1;
  for (;;) {
    uint32_t was_killed;
    int r = stopping ? -2 : read4(UCOV_AFL_FD_CTL, &was_killed);
    if (r == -2 && !stopping)
      continue;
    if (r != 0)
      break; /* afl-fuzz stopped (SIGTERM) or went away (the pipe) */
    child = fork();
    if (child < 0) {
      say("fork failed");
      break;
    }
    if (child == 0) { /* an execution: the program runs on */
      close(UCOV_AFL_FD_CTL);
      close(UCOV_AFL_FD_ST);
      sigaction(SIGTERM, &old_term, NULL);
      sigaction(SIGCHLD, &old_chld, NULL);
      return;
    }
    int status = 0;
    if (write4((uint32_t)child) != 0)
      break;
    while (waitpid(child, &status, 0) < 0)
      if (errno != EINTR)
        goto out;
      else if (stopping)
        kill(child, SIGKILL);
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

/*
 * After the runtime's own constructors (101) and the modules' guard
 * numbering (the compiler's, priority 2), before the program's others: each
 * execution runs those, as under AFL++'s own runtime.
 */
__attribute__((constructor(102))) static UCOV_NOTRACE void afl_start(void) {
  uint32_t size = map_size();
  int small;
  void *area = attach("__AFL_SHM_ID", size, &small);
  if (area == (void *)-1)
    fail(UCOV_AFL_ERROR_SHMAT, "cannot attach __AFL_SHM_ID");
  if (area) { /* (too small: afl-fuzz's first look, before it knows our size) */
    UCOV_STORE(&ucov_afl_area, (uint8_t *)area);
    UCOV_STORE(&ucov_afl_guard_limit, size);
    uint32_t pc = 1;
    while (pc * 2 <= size && pc * 2 <= UCOV_AFL_PC_MAP)
      pc *= 2;
    UCOV_STORE(&ucov_afl_pc_mask, pc - 1);
  }
  void *cmp = attach("__AFL_CMPLOG_SHM_ID", sizeof(struct ucov_afl_cmp_map), &small);
  if (cmp == (void *)-1 || small)
    fail(UCOV_AFL_ERROR_SHMAT, "cannot attach __AFL_CMPLOG_SHM_ID");
  if (cmp)
    UCOV_STORE(&ucov_afl_cmp, (struct ucov_afl_cmp_map *)cmp);
  if (fcntl(UCOV_AFL_FD_ST, F_GETFD) < 0 || fcntl(UCOV_AFL_FD_CTL, F_GETFD) < 0)
    return; /* not under afl-fuzz: run once */
  uint32_t hello = UCOV_AFL_OPT_ENABLED | UCOV_AFL_OPT_NEWCMPLOG | UCOV_AFL_OPT_MAPSIZE |
                   UCOV_AFL_SET_MAPSIZE(size);
  if (write4(hello) != 0)
    return; /* nobody listens: run once */
  serve();
}
