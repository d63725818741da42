/* SPDX-License-Identifier: MIT */
/* MD5 as RFC 1321 defines it: 64-byte blocks, four rounds of sixteen steps. */
#include "md5.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <string.h>

static uint32_t rol(uint32_t x, int s) {
  return x << s | x >> (32 - s);
}

/* Per step: the shift, and the constant floor(abs(sin(i + 1)) * 2^32). */
static const uint8_t shift[4][4] = {
    {7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
static const uint32_t k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

static void block(struct md5 *c, const uint8_t *p) {
  uint32_t w[16];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
           (uint32_t)p[4 * i + 3] << 24;
  uint32_t a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3];
  for (int i = 0; i < 64; i++) {
    uint32_t f;
    int g, round = i / 16;
    switch (round) {
    case 0:
      f = (b & cc) | (~b & d);
      g = i;
      break;
    case 1:
      f = (d & b) | (~d & cc);
      g = (5 * i + 1) % 16;
      break;
    case 2:
      f = b ^ cc ^ d;
      g = (3 * i + 5) % 16;
      break;
    default:
      f = cc ^ (b | ~d);
      g = (7 * i) % 16;
    }
    uint32_t t = d;
    d = cc;
    cc = b;
    b = b + rol(a + f + k[i] + w[g], shift[round][i % 4]);
    a = t;
  }
  c->h[0] += a;
  c->h[1] += b;
  c->h[2] += cc;
  c->h[3] += d;
}

void md5_init(struct md5 *c) {
  c->h[0] = 0x67452301;
  c->h[1] = 0xefcdab89;
  c->h[2] = 0x98badcfe;
  c->h[3] = 0x10325476;
  c->len = 0;
}

void md5_update(struct md5 *c, const void *data, size_t n) {
  const uint8_t *p = data;
  size_t have = (size_t)(c->len % 64);
  c->len += n;
  if (have) {
    size_t take = 64 - have < n ? 64 - have : n;
    memcpy(c->buf + have, p, take);
    p += take;
    n -= take;
    if (have + take < 64)
      return;
    block(c, c->buf);
  }
  for (; n >= 64; p += 64, n -= 64)
    block(c, p);
  memcpy(c->buf, p, n);
}

void md5_hex(struct md5 *c, char out[33]) {
  uint64_t bits = c->len * 8;
  uint8_t pad[128] = {0x80};
  size_t have = (size_t)(c->len % 64), n = have < 56 ? 56 - have : 120 - have;
  for (int i = 0; i < 8; i++)
    pad[n + (size_t)i] = (uint8_t)(bits >> (8 * i));
  md5_update(c, pad, n + 8);
  for (int i = 0; i < 16; i++)
    snprintf(out + 2 * i, 3, "%02x", (unsigned)(c->h[i / 4] >> (8 * (i % 4))) & 0xff);
}

int md5_file(const char *path, char hex[33], uint32_t *lines) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return -1;
  struct stat st;
  int e = fstat(fd, &st) ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0; /* (not a file: EINVAL) */
  if (e) {
    close(fd);
    errno = e;
    return -1;
  }
  struct md5 c;
  md5_init(&c);
  char buf[65536];
  ssize_t r;
  uint64_t nl = 0;
  int last = '\n';
  while ((r = read(fd, buf, sizeof(buf))) > 0) {
    md5_update(&c, buf, (size_t)r);
    for (ssize_t i = 0; lines && i < r; i++)
      nl += buf[i] == '\n';
    last = (unsigned char)buf[r - 1];
  }
  e = errno;
  close(fd);
  if (r < 0) {
    errno = e;
    return -1;
  }
  md5_hex(&c, hex);
  if (lines) {
    nl += last != '\n'; /* a last line without its newline */
    *lines = nl > UINT32_MAX ? UINT32_MAX : (uint32_t)nl;
  }
  return 0;
}
