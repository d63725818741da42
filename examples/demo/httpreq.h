/* SPDX-License-Identifier: MIT */
/*
 * A small HTTP/1.x request parser: the demo target. Real branches worth
 * fuzzing: method and version matching, header tokens, Content-Length with
 * overflow checks, chunked framing, and a magic header guarding a rare path.
 */
#ifndef HTTPREQ_H
#define HTTPREQ_H

#include <stddef.h>
#include <stdint.h>

enum http_method { HTTP_GET, HTTP_HEAD, HTTP_POST, HTTP_PUT, HTTP_DELETE, HTTP_OPTIONS };

enum http_error {
  HTTP_OK = 0,
  HTTP_E_METHOD = -1,
  HTTP_E_TARGET = -2,
  HTTP_E_VERSION = -3,
  HTTP_E_HEADER = -4,
  HTTP_E_LENGTH = -5,
  HTTP_E_TRUNCATED = -6,
  HTTP_E_TOO_MANY = -7,
  HTTP_E_CHUNK = -8,
};

#define HTTP_MAX_HEADERS 16

struct http_header {
  const char *name, *value;
  size_t name_len, value_len;
};

struct http_request {
  enum http_method method;
  const char *target;
  size_t target_len;
  int version_minor; /* HTTP/1.x */
  struct http_header headers[HTTP_MAX_HEADERS];
  int nheaders;
  uint64_t content_length;
  int chunked, keep_alive, magic;
  size_t body_offset; /* where the body starts in the input */
  uint64_t body_len;  /* decoded body length */
};

/* Parse one request from buf[0..len). Returns HTTP_OK or an http_error. */
int http_parse(const char *buf, size_t len, struct http_request *req);

const char *http_strerror(int err);

#endif
