/* SPDX-License-Identifier: MIT */
/*
 * A program whose counters are shared with a keeper (tests/e2e/keeper.sh),
 * built with `ucov cc --gcov --shared-counters` beside units u0.c .. u9.c.
 * It prints its pid, runs step() (which calls every unit) N times in the
 * way MODE says, appends each run of step() to count.log, says "ready" and
 * sleeps for the test's SIGKILL, or ("exit") returns from main and is killed
 * during its exit dump.
 *   dump:    N, __gcov_dump(), __gcov_reset(), N more
 *   inplace: N, "half" (the test asks for a dump in place), N more
 *   nodump:  N, __gcov_dump() alone (the exit adds nothing), N more
 *   dlopen:  lib.so loaded and called, then N
 *   exit:    N, then exits
 *   wait:    wait(NULL) first: -1 with ECHILD at once (no keeper child)
 * Usage: kt MODE N
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void __gcov_dump(void);
void __gcov_reset(void);
int u0(int), u1(int), u2(int), u3(int), u4(int), u5(int), u6(int), u7(int), u8(int), u9(int);

static FILE *count_log;

static int step(int i) {
  fputs("s\n", count_log);
  return u0(i) + u1(i) + u2(i) + u3(i) + u4(i) + u5(i) + u6(i) + u7(i) + u8(i) + u9(i);
}

static int steps(int n) {
  int sum = 0;
  for (int i = 0; i < n; i++)
    sum += step(i);
  fflush(count_log);
  return sum;
}

static void say(const char *what) {
  printf("%s\n", what);
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  const char *mode = argv[1];
  int n = atoi(argv[2]), sum = 0;
  count_log = fopen("count.log", "a");
  if (!count_log)
    return 1;
  printf("pid %d\n", (int)getpid());
  if (!strcmp(mode, "wait")) {
    errno = 0;
    pid_t w = wait(NULL);
    printf("wait %d %s\n", (int)w, errno == ECHILD ? "ECHILD" : strerror(errno));
    return 0;
  }
  if (!strcmp(mode, "dlopen")) {
    void *lib = dlopen("./lib.so", RTLD_NOW);
    int (*lib_work)(int) = lib ? (int (*)(int))dlsym(lib, "lib_work") : NULL;
    if (!lib_work)
      return 1;
    sum += lib_work(n);
  }
  sum += steps(n);
  if (!strcmp(mode, "dump") || !strcmp(mode, "nodump")) {
    __gcov_dump();
    if (!strcmp(mode, "dump"))
      __gcov_reset();
    sum += steps(n);
  } else if (!strcmp(mode, "inplace")) {
    say("half");
    char line[16];
    if (!fgets(line, sizeof(line), stdin))
      return 1;
    sum += steps(n);
  }
  if (!strcmp(mode, "exit")) {
    say("exiting");
    return sum == 42;
  }
  say("ready");
  for (;;)
    pause();
}
