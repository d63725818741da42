/* SPDX-License-Identifier: MIT */
/*
 * afl-fuzz's side of the fork server, as much as tests/e2e/aflserver.sh
 * needs to play a newer afl-fuzz: System V segments for the edge map and
 * the comparison log of the given sizes (__AFL_SHM_ID, __AFL_CMPLOG_SHM_ID),
 * the pipes on 198 and 199, the target started, its first word read. A
 * hello: one execution requested and waited for, then "hello WORD status
 * STATUS"; an error word: "error CODE". The target's stderr is its own.
 *   fakefuzz MAP_BYTES CMPLOG_BYTES TARGET [ARGS...]
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

static int segment(const char *var, size_t bytes) {
  int id = shmget(IPC_PRIVATE, bytes, IPC_CREAT | IPC_EXCL | 0600);
  char s[32];
  if (id < 0)
    return -1;
  snprintf(s, sizeof(s), "%d", id);
  setenv(var, s, 1);
  return id;
}

static int read4(int fd, uint32_t *v) {
  return read(fd, v, 4) == 4 ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc < 4)
    return 2;
  int map = segment("__AFL_SHM_ID", strtoul(argv[1], NULL, 10));
  int cmp = segment("__AFL_CMPLOG_SHM_ID", strtoul(argv[2], NULL, 10));
  int ctl[2], st[2];
  if (map < 0 || cmp < 0 || pipe(ctl) || pipe(st)) {
    perror("fakefuzz");
    return 1;
  }
  pid_t server = fork();
  if (server == 0) {
    dup2(ctl[0], 198);
    dup2(st[1], 199);
    execv(argv[3], argv + 3);
    _exit(127);
  }
  close(ctl[0]);
  close(st[1]);
  uint32_t word = 0, pid = 0, status = 0, go = 0;
  int ret = 1;
  if (read4(st[0], &word) != 0) {
    printf("nothing\n");
  } else if ((word & 0xf800008fu) == 0xf800008fu) {
    printf("error %u\n", (word >> 8) & 0xffffu);
    ret = 0;
  } else if (write(ctl[1], &go, 4) == 4 && read4(st[0], &pid) == 0 && read4(st[0], &status) == 0) {
    printf("hello %08x status %u\n", word, status);
    ret = 0;
  }
  kill(server, SIGKILL);
  waitpid(server, NULL, 0);
  shmctl(map, IPC_RMID, NULL);
  shmctl(cmp, IPC_RMID, NULL);
  return ret;
}
