/* SPDX-License-Identifier: MIT */
/*
 * Profile-path benchmark driver: runs a Lua script in an interpreter built
 * with --coverage (linked with libgcov or with ucov), then
 *   BENCH_DUMP=1: times one __gcov_dump() (the .gcda files, GCOV_PREFIX set),
 *                 or with -DBENCH_PGO one __llvm_profile_write_file();
 *   BENCH_HOLD=1: prints "ready" and waits for SIGTERM (for live pulls).
 * usage: gcov_driver SCRIPT SCALE
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#ifdef BENCH_PGO /* an LLVM profile build: compiler-rt's (or ucov's) writer */
int __llvm_profile_write_file(void);
#define BENCH_WRITE() __llvm_profile_write_file()
#else
void __gcov_dump(void);
#define BENCH_WRITE() __gcov_dump()
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: gcov_driver SCRIPT SCALE\n");
    return 2;
  }
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_pushinteger(L, atoi(argv[2]));
  lua_setglobal(L, "SCALE");
  double t0 = now();
  if (luaL_dofile(L, argv[1]) != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    return 1;
  }
  double t1 = now();
  printf("time %.6f\n", t1 - t0);
  if (getenv("BENCH_DUMP")) {
    double d0 = now();
    BENCH_WRITE();
    printf("dump %.6f\n", now() - d0);
  }
  if (getenv("BENCH_HOLD")) {
    printf("ready\n");
    fflush(stdout);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sig;
    sigwait(&set, &sig);
  }
  fflush(stdout);
  _exit(0); /* no exit-time dump: the runs are timed, not collected */
}
