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

#include "driver_trace.h"
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

/* Every 100 VM instructions: collect and reset a half-full buffer. */
static void reset_hook(lua_State *L, lua_Debug *ar) {
  (void)L;
  (void)ar;
  trace_reset();
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: lua_driver SCRIPT SCALE on|off|unique[:WORDS]\n");
    return 2;
  }
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
  trace_start(argv[3]);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  trace_zero();
  int rc = lua_pcall(L, 0, 0, 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  trace_stop();
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
