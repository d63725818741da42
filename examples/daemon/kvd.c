/* SPDX-License-Identifier: MIT */
/*
 * kvd: a small key-value daemon for the live-coverage demo. It serves a line
 * protocol on a Unix socket and never exits on its own (SIGTERM stops it):
 *   SET key value | GET key | DEL key | KEYS | STATS | PING
 * `kvd --client SOCKET COMMAND...` sends commands and prints the replies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_KEYS 256
#define MAX_LEN 128

struct entry {
  char key[MAX_LEN], value[MAX_LEN];
  int used;
};

static struct entry table[MAX_KEYS];
static unsigned long n_get, n_set, n_del, n_miss;
static volatile sig_atomic_t stopping;

static unsigned hash(const char *s) {
  unsigned h = 2166136261u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static struct entry *lookup(const char *key, int create) {
  unsigned h = hash(key) % MAX_KEYS;
  for (unsigned i = 0; i < MAX_KEYS; i++) {
    struct entry *e = &table[(h + i) % MAX_KEYS];
    if (e->used && strcmp(e->key, key) == 0)
      return e;
    if (!e->used && create) {
      e->used = 1;
      snprintf(e->key, sizeof(e->key), "%s", key);
      return e;
    }
  }
  return NULL;
}

static void cmd_set(const char *key, const char *value, FILE *out) {
  if (!key || !value || strlen(key) >= MAX_LEN || strlen(value) >= MAX_LEN) {
    fputs("ERR usage: SET key value\n", out);
    return;
  }
  struct entry *e = lookup(key, 1);
  if (!e) {
    fputs("ERR full\n", out);
    return;
  }
  snprintf(e->value, sizeof(e->value), "%s", value);
  n_set++;
  fputs("OK\n", out);
}

static void cmd_get(const char *key, FILE *out) {
  struct entry *e = key ? lookup(key, 0) : NULL;
  n_get++;
  if (!e) {
    n_miss++;
    fputs("NIL\n", out);
    return;
  }
  fprintf(out, "VALUE %s\n", e->value);
}

static void cmd_del(const char *key, FILE *out) {
  struct entry *e = key ? lookup(key, 0) : NULL;
  if (!e) {
    fputs("NIL\n", out);
    return;
  }
  /* Reinsert the rest of the probe run so lookups still find it. */
  e->used = 0;
  n_del++;
  unsigned idx = (unsigned)(e - table);
  for (unsigned i = 1; i < MAX_KEYS; i++) {
    struct entry *next = &table[(idx + i) % MAX_KEYS];
    if (!next->used)
      break;
    struct entry moved = *next;
    next->used = 0;
    struct entry *slot = lookup(moved.key, 1);
    snprintf(slot->value, sizeof(slot->value), "%s", moved.value);
  }
  fputs("OK\n", out);
}

static void cmd_keys(FILE *out) {
  int n = 0;
  for (int i = 0; i < MAX_KEYS; i++)
    if (table[i].used) {
      fprintf(out, "%s%s", n++ ? " " : "KEYS ", table[i].key);
    }
  fputs(n ? "\n" : "KEYS\n", out);
}

static void cmd_stats(FILE *out) {
  fprintf(out, "STATS get=%lu set=%lu del=%lu miss=%lu\n", n_get, n_set, n_del, n_miss);
}

static void handle_line(char *line, FILE *out) {
  char *save = NULL;
  char *cmd = strtok_r(line, " \t\r\n", &save);
  char *a = strtok_r(NULL, " \t\r\n", &save);
  char *b = strtok_r(NULL, "\r\n", &save);
  if (!cmd)
    fputs("ERR empty\n", out);
  else if (!strcasecmp(cmd, "SET"))
    cmd_set(a, b, out);
  else if (!strcasecmp(cmd, "GET"))
    cmd_get(a, out);
  else if (!strcasecmp(cmd, "DEL"))
    cmd_del(a, out);
  else if (!strcasecmp(cmd, "KEYS"))
    cmd_keys(out);
  else if (!strcasecmp(cmd, "STATS"))
    cmd_stats(out);
  else if (!strcasecmp(cmd, "PING"))
    fputs("PONG\n", out);
  else
    fprintf(out, "ERR unknown command %s\n", cmd);
}

static void on_term(int sig) {
  (void)sig;
  stopping = 1;
}

static int serve(const char *path) {
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
  unlink(path);
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 8)) {
    perror(path);
    return 1;
  }
  struct sigaction sa = {.sa_handler = on_term};
  sigaction(SIGTERM, &sa, NULL); /* no SA_RESTART: accept returns EINTR */
  sigaction(SIGINT, &sa, NULL);
  while (!stopping) {
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
      continue;
    FILE *in = fdopen(fd, "r"), *out = fdopen(dup(fd), "w");
    char line[512];
    while (in && out && fgets(line, sizeof(line), in)) {
      handle_line(line, out);
      fflush(out);
    }
    if (in)
      fclose(in);
    if (out)
      fclose(out);
  }
  unlink(path);
  return 0;
}

static int client(const char *path, int n, char **cmds) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
    perror(path);
    return 1;
  }
  FILE *in = fdopen(fd, "r"), *out = fdopen(dup(fd), "w");
  char line[512];
  for (int i = 0; i < n; i++) {
    fprintf(out, "%s\n", cmds[i]);
    fflush(out);
    if (!fgets(line, sizeof(line), in))
      return 1;
    fputs(line, stdout);
  }
  fclose(in);
  fclose(out);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "--client"))
    return client(argv[2], argc - 3, argv + 3);
  if (argc != 2) {
    fprintf(stderr, "usage: kvd SOCKET | kvd --client SOCKET COMMAND...\n");
    return 2;
  }
  return serve(argv[1]);
}
