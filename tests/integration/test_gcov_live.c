/* SPDX-License-Identifier: MIT */
/*
 * The control socket, live: READ_AND_RESET in a loop while 4 threads count
 * loses nothing (the pulls plus the exit-time tree add up to a run without
 * pulls), and bad input never stops the target.
 * usage: test_gcov_live HAMMER_PROGRAM WORKDIR ITERATIONS [pgo]
 * (pgo: the hammer is a clang --pgo build; its raw profile is pulled)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "proto/client.h"
#include "proto/protocol.h"

static const char *prog, *work, *iterations;
static int pgo; /* the target is a clang --pgo build: pgo/<program>.profraw */

/* Sum of all ARCS counters of a .gcda image. */
static uint64_t sum_arcs(const uint8_t *p, size_t len) {
  uint64_t sum = 0;
  if (len < 16)
    return 0;
  size_t off = 16;
  while (off + 8 <= len) {
    uint32_t tag, length;
    memcpy(&tag, p + off, 4);
    memcpy(&length, p + off + 4, 4);
    off += 8;
    if (tag == 0)
      break;
    if ((int32_t)length < 0)
      continue;
    if (tag == 0x01a10000u)
      for (size_t i = 0; i + 8 <= length && off + i + 8 <= len; i += 8) {
        uint64_t v;
        memcpy(&v, p + off + i, 8);
        sum += v;
      }
    off += length;
  }
  return sum;
}

/* Sum of all counters of an LLVM raw profile (v8). */
static uint64_t sum_profraw(const uint8_t *p, size_t len) {
  uint64_t h[11], sum = 0;
  if (len < sizeof(h))
    return 0;
  memcpy(h, p, sizeof(h));
  uint64_t off = sizeof(h) + h[2] + h[3] * 48 + h[4];
  for (uint64_t i = 0; i < h[5] && off + 8 * (i + 1) <= len; i++) {
    uint64_t v;
    memcpy(&v, p + off + 8 * i, 8);
    sum += v;
  }
  return sum;
}

static uint64_t sum_counters(const uint8_t *p, size_t len) {
  return pgo ? sum_profraw(p, len) : sum_arcs(p, len);
}

static uint64_t sum_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  static uint8_t buf[1 << 20];
  size_t n = fread(buf, 1, sizeof(buf), f);
  fclose(f);
  return sum_counters(buf, n);
}

static pid_t spawn(const char *exit_dir, const char *iters) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("UCOV_EXIT_DIR", exit_dir, 1);
    execl(prog, prog, iters, (char *)NULL);
    _exit(127);
  }
  return pid;
}

static int connect_retry(pid_t pid, struct ucov_ctl *c) {
  char err[256];
  for (int i = 0; i < 500; i++) {
    if (ucov_ctl_open(pid, c, err, sizeof(err)) == 0)
      return 0;
    usleep(2000);
  }
  fprintf(stderr, "%s\n", err);
  return -1;
}

/* The exit tree's .gcda of the hammer (the only unit). */
static uint64_t sum_tree(const char *dir) {
  char cmd[4096], path[4096] = "";
  snprintf(cmd, sizeof(cmd), "find '%s/%s' -name '*.%s'", dir, pgo ? "pgo" : "gcov",
           pgo ? "profraw" : "gcda");
  FILE *p = popen(cmd, "r");
  if (p && fgets(path, sizeof(path), p))
    path[strcspn(path, "\n")] = 0;
  if (p)
    pclose(p);
  return path[0] ? sum_file(path) : 0;
}

static void test_lossless(void) {
  char ref_dir[4096], live_dir[4096];
  snprintf(ref_dir, sizeof(ref_dir), "%s/ref", work);
  snprintf(live_dir, sizeof(live_dir), "%s/live", work);
  /* Fresh exit trees: a file of an earlier run (another build's name) would
   * be summed instead of this run's. */
  char rm[8400];
  snprintf(rm, sizeof(rm), "rm -rf '%s' '%s'", ref_dir, live_dir);
  CHECK(system(rm) == 0);
  int status;
  pid_t pid = spawn(ref_dir, iterations);
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  uint64_t want = sum_tree(ref_dir);
  CHECK(want > 4 * (uint64_t)atol(iterations));

  pid = spawn(live_dir, iterations);
  struct ucov_ctl c;
  CHECK_OK(connect_retry(pid, &c));
  /* The unit's name, from LIST. */
  struct ucov_ctl_reply r;
  char err[256], name[4096] = "";
  CHECK_OK(ucov_ctl_call(&c, UCOV_OP_LIST, NULL, 0, &r, err, sizeof(err)));
  struct ucov_ctl_object *objs;
  long n = ucov_ctl_parse_list(&r, &objs);
  for (long i = 0; i < n; i++)
    if (!strncmp(objs[i].name, pgo ? "pgo/" : "gcov/", pgo ? 4 : 5))
      snprintf(name, sizeof(name), "%s", objs[i].name);
  ucov_ctl_objects_free(objs, n);
  ucov_ctl_reply_free(&r);
  CHECK(name[0] != 0);
  uint64_t pulled = 0, pulls = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (ucov_ctl_call(&c, UCOV_OP_READ_AND_RESET, name, strlen(name), &r, err, sizeof(err)))
      break; /* the target is exiting */
    if (r.status == 0) {
      pulled += sum_counters(r.data, r.len);
      pulls++;
    }
    ucov_ctl_reply_free(&r);
  }
  ucov_ctl_close(&c);
  if (waitpid(pid, &status, 0) < 0 && errno != ECHILD)
    CHECK(0);
  uint64_t final = sum_tree(live_dir);
  printf("lossless: %llu pulls, %llu pulled + %llu at exit = %llu, want %llu\n",
         (unsigned long long)pulls, (unsigned long long)pulled, (unsigned long long) final,
         (unsigned long long)(pulled + final), (unsigned long long)want);
  CHECK(pulls >= 5);
  CHECK_EQ(pulled + final, want);
}

/*
 * Send raw bytes on a new connection; return the reply's status (-1 for none).
 * half_close: 1 = shut the write side (the server sees the frame end), 2 = close
 * at once without waiting for a reply.
 */
static long raw_exchange(pid_t pid, const void *data, size_t len, int half_close) {
  struct ucov_ctl c;
  char err[256];
  if (ucov_ctl_open(pid, &c, err, sizeof(err)))
    return -2;
  if (len)
    (void)!send(c.fd, data, len, MSG_NOSIGNAL);
  if (half_close == 2) {
    ucov_ctl_close(&c);
    return -1;
  }
  if (half_close)
    shutdown(c.fd, SHUT_WR);
  uint8_t hdr[UCOV_PROTO_HEADER];
  long status = -1;
  ssize_t got = 0;
  while (got < (ssize_t)sizeof(hdr)) {
    ssize_t k = read(c.fd, hdr + got, sizeof(hdr) - (size_t)got);
    if (k <= 0)
      break;
    got += k;
  }
  if (got == sizeof(hdr)) {
    struct ucov_frame f;
    ucov_frame_decode(hdr, &f);
    status = f.status;
  }
  ucov_ctl_close(&c);
  return status;
}

static void frame(uint8_t *out, uint16_t op, uint32_t length) {
  ucov_frame_encode(out, op, 0, length);
}

static void test_bad_input(void) {
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/fuzz", work);
  pid_t pid = spawn(dir, "2000000000"); /* runs until killed */
  struct ucov_ctl c;
  CHECK_OK(connect_retry(pid, &c));
  ucov_ctl_close(&c);
  uint8_t buf[64];

  memcpy(buf, "GARBAGE GARBAGE!", 16);
  CHECK_EQ(raw_exchange(pid, buf, 16, 0), UCOV_ST_BAD_MAGIC);
  frame(buf, UCOV_OP_LIST, 0);
  buf[4] = 9; /* version 9 */
  CHECK_EQ(raw_exchange(pid, buf, 16, 0), UCOV_ST_BAD_VERSION);
  frame(buf, UCOV_OP_READ, 1u << 30);
  CHECK_EQ(raw_exchange(pid, buf, 16, 0), UCOV_ST_TOO_LARGE);
  frame(buf, 77, 0);
  CHECK_EQ(raw_exchange(pid, buf, 16, 0), UCOV_ST_UNKNOWN_OP);
  frame(buf, UCOV_OP_READ, 40); /* promises 40 bytes, sends 8 */
  memcpy(buf + 16, "gcov/abc", 8);
  CHECK_EQ(raw_exchange(pid, buf, 24, 1), UCOV_ST_TRUNCATED);
  CHECK_EQ(raw_exchange(pid, buf, 7, 1), UCOV_ST_TRUNCATED); /* half a header */
  frame(buf, UCOV_OP_READ, 4);
  memcpy(buf + 16, "a\0bc", 4);
  CHECK_EQ(raw_exchange(pid, buf, 20, 0), UCOV_ST_BAD_REQUEST);
  frame(buf, UCOV_OP_READ, 0);
  CHECK_EQ(raw_exchange(pid, buf, 16, 0), UCOV_ST_BAD_REQUEST);
  frame(buf, UCOV_OP_LIST, 3);
  memcpy(buf + 16, "xyz", 3);
  CHECK_EQ(raw_exchange(pid, buf, 19, 0), UCOV_ST_BAD_REQUEST);
  frame(buf, UCOV_OP_READ, 9);
  memcpy(buf + 16, "gcov/nope", 9);
  CHECK_EQ(raw_exchange(pid, buf, 25, 0), UCOV_ST_NO_OBJECT);
  frame(buf, UCOV_OP_RESET, 7);
  memcpy(buf + 16, "modules", 7);
  CHECK_EQ(raw_exchange(pid, buf, 23, 0), UCOV_ST_NOT_SUPPORTED);

  /* Random bytes, random lengths, random cuts. */
  srand(12345);
  static uint8_t junk[8192];
  for (int i = 0; i < 300; i++) {
    size_t len = (size_t)(rand() % (int)sizeof(junk));
    for (size_t k = 0; k < len; k++)
      junk[k] = (uint8_t)rand();
    if (i % 3 == 0 && len >= 16) /* a valid header with a random op and length */
      ucov_frame_encode(junk, (uint16_t)(rand() % 12), 0, (uint32_t)rand() % 10000);
    raw_exchange(pid, junk, len, 1 + rand() % 2);
    CHECK(kill(pid, 0) == 0);
  }

  /* Still serving. */
  CHECK_OK(connect_retry(pid, &c));
  struct ucov_ctl_reply r;
  char err[256];
  CHECK_OK(ucov_ctl_call(&c, UCOV_OP_INFO, NULL, 0, &r, err, sizeof(err)));
  CHECK(r.status == 0 && strstr((char *)r.data, "pid=") != NULL);
  ucov_ctl_reply_free(&r);
  CHECK_OK(ucov_ctl_call(&c, UCOV_OP_LIST, NULL, 0, &r, err, sizeof(err)));
  CHECK(r.status == 0 && r.len > 0);
  struct ucov_ctl_object *objs;
  long n = ucov_ctl_parse_list(&r, &objs);
  ucov_ctl_reply_free(&r);
  /* SIZE says what READ returns (the hammer's counters are all non-zero by now,
   * so the length of its records no longer changes). */
  for (long i = 0; i < n; i++) {
    if (strncmp(objs[i].name, "gcov/", 5))
      continue;
    uint64_t size = 0;
    CHECK_OK(
        ucov_ctl_call(&c, UCOV_OP_SIZE, objs[i].name, strlen(objs[i].name), &r, err, sizeof(err)));
    CHECK(r.status == 0 && r.len == 8);
    if (r.len == 8)
      memcpy(&size, r.data, 8);
    ucov_ctl_reply_free(&r);
    CHECK_OK(
        ucov_ctl_call(&c, UCOV_OP_READ, objs[i].name, strlen(objs[i].name), &r, err, sizeof(err)));
    CHECK(r.status == 0 && size == r.len && size == objs[i].size);
    ucov_ctl_reply_free(&r);
  }
  ucov_ctl_objects_free(objs, n);
  ucov_ctl_close(&c);

  /* Another uid is refused, by SO_PEERCRED even where the file mode would let it in. */
  if (geteuid() == 0) {
    char path[256];
    ucov_control_path(pid, path, sizeof(path));
    char dirpath[256];
    ucov_control_dir(dirpath, sizeof(dirpath));
    chmod(dirpath, 0711);
    chmod(path, 0666);
    pid_t child = fork();
    if (child == 0) {
      if (setgid(65534) || setuid(65534))
        _exit(3);
      /* (ucov_ctl_open would refuse this directory and socket itself: connect
       * as a client that checks nothing.) */
      uint8_t h[16];
      ucov_frame_encode(h, UCOV_OP_LIST, 0, 0);
      struct sockaddr_un a = {.sun_family = AF_UNIX};
      memcpy(a.sun_path, path, strnlen(path, sizeof(a.sun_path) - 1));
      int s = socket(AF_UNIX, SOCK_STREAM, 0);
      if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0)
        _exit(2);
      (void)!send(s, h, 16, MSG_NOSIGNAL); /* the refusal may come first */
      if (recv(s, h, 16, MSG_WAITALL) != 16)
        _exit(4);
      struct ucov_frame f;
      ucov_frame_decode(h, &f);
      _exit(f.status == UCOV_ST_PERMISSION ? 0 : 1);
    }
    int status;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    chmod(dirpath, 0700);
  } else {
    printf("other-uid check skipped: needs root to switch uid\n");
  }
  CHECK(kill(pid, 0) == 0);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

int main(int argc, char **argv) {
  if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "pgo"))) {
    fprintf(stderr, "usage: test_gcov_live HAMMER WORKDIR ITERATIONS [pgo]\n");
    return 2;
  }
  pgo = argc == 5;
  prog = argv[1];
  work = argv[2];
  iterations = argv[3];
  /* A private runtime directory in /tmp, which every uid can traverse to. */
  char rt[] = "/tmp/ucov-test-XXXXXX";
  mkdir(work, 0755);
  if (!mkdtemp(rt)) {
    perror("mkdtemp");
    return 1;
  }
  setenv("UCOV_RUNTIME_DIR", rt, 1);
  test_lossless();
  if (!pgo)
    test_bad_input();
  rmdir(rt);
  return check_report("test_gcov_live");
}
