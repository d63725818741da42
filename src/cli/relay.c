/* SPDX-License-Identifier: MIT */
/*
 * ucov relay --dev PATH --tty TTY: carry the ucov protocol between a serial
 * line and a frame device, inside the system that has the device (ucov.ko's
 * /dev/ucov in a Linux guest), so that the host's `ucov ls|pull|reset --serial
 * PATH` reaches that kernel as it reaches the bare-metal one. Each request
 * frame read from the line is written to the device, and the device's reply
 * written back. Bytes between frames are skipped up to the next magic, as the
 * bare-metal kernel skips them; a request whose header the device refuses
 * gets the device's error reply and its payload is skipped the same way; a
 * request that stops for a second mid-frame is dropped (the device is opened
 * again, so no half request stays in it) and answered TRUNCATED. Runs until
 * the line ends or a signal; says "ready" on stdout once both are open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "proto/client.h"
#include "ucov/port/frame.h"

static const char usage_text[] =
    "usage: ucov relay --dev PATH --tty TTY\n"
    "\n"
    "Carry the ucov protocol between the serial line TTY (set raw, 115200 baud)\n"
    "and the frame device PATH (ucov.ko's /dev/ucov): run it in a guest whose\n"
    "second serial port the host reaches, and the host's `ucov ls|pull|reset\n"
    "--serial SOCKET` reach the guest's kernel. Says \"ready\" on stdout once both\n"
    "are open; runs until the line ends.\n";

/* One byte from the line within ms (-1: none came, or the line ended). */
static int line_byte(int fd, int ms) {
  struct pollfd p = {.fd = fd, .events = POLLIN};
  uint8_t b;
  for (;;) {
    int r = poll(&p, 1, ms);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    ssize_t n = read(fd, &b, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    return n == 1 ? b : -2; /* -2: the line ended */
  }
}

static void reply_status(int tty, uint16_t op, uint32_t status) {
  const char *msg = ucov_status_str(status);
  uint8_t hdr[UCOV_PROTO_HEADER];
  ucov_frame_encode(hdr, op, status, (uint32_t)strlen(msg));
  ucov_write_full(tty, hdr, sizeof(hdr));
  ucov_write_full(tty, msg, strlen(msg));
}

/* The device's reply to what was written, whole, to the line. 0, or -1 (the
 * device failed: it is opened again). */
static int forward_reply(int dev, int tty) {
  uint8_t hdr[UCOV_PROTO_HEADER], buf[65536];
  size_t got = 0;
  while (got < sizeof(hdr)) {
    ssize_t r = read(dev, hdr + got, sizeof(hdr) - got);
    if (r <= 0)
      return -1;
    got += (size_t)r;
  }
  struct ucov_frame f;
  ucov_frame_decode(hdr, &f);
  if (ucov_write_full(tty, hdr, sizeof(hdr)))
    return -1;
  for (uint64_t left = f.length; left;) {
    ssize_t r = read(dev, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
    if (r <= 0 || ucov_write_full(tty, buf, (size_t)r))
      return -1;
    left -= (uint64_t)r;
  }
  return 0;
}

/* The next request on the line into req: whatever comes before its magic
 * is skipped; a header the device will refuse is passed without its
 * payload (the device answers it; the payload is then noise). *n its bytes.
 * 0; 1 if it was cut short (a second without a byte); -1 at the line's end. */
static int read_request(int tty, uint8_t *req, size_t *n) {
  static const uint8_t magic[4] = {'U', 'C', 'O', 'V'};
  unsigned m = 0;
  while (m < 4) {
    int b = line_byte(tty, -1);
    if (b == -2)
      return -1;
    if (b < 0)
      continue;
    m = b == magic[m] ? m + 1 : b == magic[0];
  }
  memcpy(req, magic, 4);
  size_t want = UCOV_PROTO_HEADER;
  *n = 4;
  while (*n < want) {
    int b = line_byte(tty, 1000);
    if (b < 0)
      return 1;
    req[(*n)++] = (uint8_t)b;
    if (*n == UCOV_PROTO_HEADER) {
      struct ucov_frame f;
      ucov_frame_decode(req, &f);
      if (ucov_frame_check(&f) != UCOV_ST_OK)
        break;
      want += f.length;
    }
  }
  return 0;
}

int cmd_relay(int argc, char **argv) {
  static const struct option opts[] = {{"dev", required_argument, 0, 'd'},
                                       {"tty", required_argument, 0, 't'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  const char *dev_path = NULL, *tty_path = NULL;
  int c;
  while ((c = getopt_long(argc, argv, "d:t:h", opts, NULL)) != -1) {
    if (c == 'd') {
      dev_path = optarg;
    } else if (c == 't') {
      tty_path = optarg;
    } else if (c == 'h') {
      fputs(usage_text, stdout);
      return UCOV_EXIT_OK;
    } else {
      return cli_bad_option(argc, argv, opts);
    }
  }
  if (!dev_path || !tty_path || optind != argc) {
    UCOV_ERR("needs --dev PATH and --tty TTY, and nothing else\n");
    return cli_try_help();
  }
  int tty = open(tty_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
  struct termios t;
  if (tty < 0 ||
      (tcgetattr(tty, &t) == 0 && (cfmakeraw(&t), cfsetispeed(&t, B115200),
                                   cfsetospeed(&t, B115200), tcsetattr(tty, TCSANOW, &t) != 0))) {
    diag_at(DIAG_ERROR, tty_path, 0, "%s", strerror(errno));
    return UCOV_EXIT_FAIL;
  }
  int dev = open(dev_path, O_RDWR | O_CLOEXEC);
  if (dev < 0) {
    diag_at(DIAG_ERROR, dev_path, 0, "%s", strerror(errno));
    return UCOV_EXIT_FAIL;
  }
  /* Said once both are open: from here on no request on the line is lost. */
  printf("ucov relay: %s <-> %s: ready\n", tty_path, dev_path);
  fflush(stdout);
  static uint8_t req[UCOV_PROTO_HEADER + UCOV_PROTO_MAX_REQUEST];
  for (;;) {
    size_t n;
    int cut = read_request(tty, req, &n);
    if (cut < 0)
      return UCOV_EXIT_OK; /* the line ended */
    struct ucov_frame f;
    ucov_frame_decode(req, &f);
    if (cut) { /* nothing reached the device yet */
      reply_status(tty, f.op, UCOV_ST_TRUNCATED);
      continue;
    }
    if (ucov_write_full(dev, req, n) || forward_reply(dev, tty)) {
      diag_at(DIAG_ERROR, dev_path, 0, "%s: opened again", strerror(errno));
      close(dev);
      dev = open(dev_path, O_RDWR | O_CLOEXEC);
      if (dev < 0) {
        diag_at(DIAG_ERROR, dev_path, 0, "%s", strerror(errno));
        return UCOV_EXIT_FAIL;
      }
      reply_status(tty, f.op, UCOV_ST_INTERNAL);
    }
  }
}
