/* SPDX-License-Identifier: MIT */
/*
 * Benchmark driver: runs a Lua script in an interpreter built with one of the
 * instrumentation variants, optionally tracing the whole run into a KCOV-style
 * buffer that is reset whenever it is half full (as a fuzzer resets it per
 * input). Prints the run time and the number of records.
 *
 * usage: lua_driver SCRIPT SCALE on|off|unique[:BITMAP_WORDS]
 * unique: KCOV_UNIQUE_ENABLE over the whole run, no resets; prints the
 * records appended and the drops of a full trace.
 * This file is not instrumented; the Lua objects are.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#define AREA_WORDS (1u << 23)

static uint64_t *area;
static uint64_t records, overflows;

/* Every 100 VM instructions: collect and reset a half-full buffer. */
static void reset_hook(lua_State *L, lua_Debug *ar) {
  (void)L;
  (void)ar;
  if (!area)
    return;
  uint64_t n = __atomic_load_n(&area[0], __ATOMIC_RELAXED);
  if (n >= AREA_WORDS - 1)
    overflows++;
  if (n > AREA_WORDS / 2) {
    records += n;
    __atomic_store_n(&area[0], 0, __ATOMIC_RELAXED);
  }
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: lua_driver SCRIPT SCALE on|off|unique[:WORDS]\n");
    return 2;
  }
  int trace = strcmp(argv[3], "on") == 0;
  uint64_t unique_words = 0;
  if (strncmp(argv[3], "unique", 6) == 0)
    unique_words = argv[3][6] == ':' ? strtoull(argv[3] + 7, NULL, 0) : 1u << 14;
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_pushinteger(L, atoi(argv[2]));
  lua_setglobal(L, "SCALE");
  lua_sethook(L, reset_hook, LUA_MASKCOUNT, 100);
  if (luaL_loadfile(L, argv[1]) != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    return 1;
  }
  struct timespec t0, t1;
  uint64_t *unique_trace = NULL;
  if (trace)
    area = backend_start(AREA_WORDS, 0);
  else if (unique_words)
    unique_trace = backend_start(AREA_WORDS + unique_words, unique_words);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  __atomic_store_n(area           ? &area[0]
                   : unique_trace ? &unique_trace[0]
                                  : &records,
                   0, __ATOMIC_RELAXED);
  int rc = lua_pcall(L, 0, 0, 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (area) {
    records += __atomic_load_n(&area[0], __ATOMIC_RELAXED);
    backend_stop();
  }
  if (unique_trace) {
    records = __atomic_load_n(&unique_trace[0], __ATOMIC_RELAXED);
    overflows = records >= AREA_WORDS - 1; /* the trace filled up: drops */
    backend_stop();
  }
  if (rc != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    return 1;
  }
  lua_getglobal(L, "RESULT");
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("time %.6f records %llu overflows %llu result %lld\n", secs, (unsigned long long)records,
         (unsigned long long)overflows, (long long)lua_tointeger(L, -1));
  lua_close(L);
  return 0;
}
