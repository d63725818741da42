/* SPDX-License-Identifier: MIT */
/* The demo target: an HTTP/1.x request parser (see httpreq.h). */
#include "httpreq.h"

#include <string.h>

struct cursor {
  const char *p, *end;
};

static int at_end(const struct cursor *c) {
  return c->p >= c->end;
}

static int is_tchar(unsigned char ch) {
  if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
    return 1;
  switch (ch) {
  case '!':
  case '#':
  case '$':
  case '%':
  case '&':
  case '\'':
  case '*':
  case '+':
  case '-':
  case '.':
  case '^':
  case '_':
  case '`':
  case '|':
  case '~':
    return 1;
  default:
    return 0;
  }
}

static int lower(int ch) {
  return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
}

static int name_is(const struct http_header *h, const char *name) {
  size_t n = strlen(name);
  if (h->name_len != n)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (lower((unsigned char)h->name[i]) != name[i])
      return 0;
  return 1;
}

static int parse_method(struct cursor *c, enum http_method *m) {
  static const struct {
    const char *name;
    enum http_method m;
  } methods[] = {{"GET", HTTP_GET}, {"HEAD", HTTP_HEAD},     {"POST", HTTP_POST},
                 {"PUT", HTTP_PUT}, {"DELETE", HTTP_DELETE}, {"OPTIONS", HTTP_OPTIONS}};
  const char *start = c->p;
  while (!at_end(c) && is_tchar((unsigned char)*c->p))
    c->p++;
  size_t n = (size_t)(c->p - start);
  if (at_end(c) || *c->p != ' ')
    return HTTP_E_METHOD;
  for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
    if (strlen(methods[i].name) == n && memcmp(methods[i].name, start, n) == 0) {
      *m = methods[i].m;
      c->p++;
      return HTTP_OK;
    }
  }
  return HTTP_E_METHOD;
}

static int parse_target(struct cursor *c, struct http_request *req) {
  const char *start = c->p;
  if (at_end(c))
    return HTTP_E_TRUNCATED;
  if (*c->p != '/' && *c->p != '*')
    return HTTP_E_TARGET;
  while (!at_end(c) && *c->p != ' ') {
    unsigned char ch = (unsigned char)*c->p;
    if (ch < 0x21 || ch == 0x7f)
      return HTTP_E_TARGET;
    c->p++;
  }
  if (at_end(c))
    return HTTP_E_TRUNCATED;
  req->target = start;
  req->target_len = (size_t)(c->p - start);
  c->p++;
  return HTTP_OK;
}

static int parse_version(struct cursor *c, struct http_request *req) {
  if (c->end - c->p < 10)
    return HTTP_E_TRUNCATED;
  if (memcmp(c->p, "HTTP/1.", 7) != 0)
    return HTTP_E_VERSION;
  char minor = c->p[7];
  if (minor != '0' && minor != '1')
    return HTTP_E_VERSION;
  if (c->p[8] != '\r' || c->p[9] != '\n')
    return HTTP_E_VERSION;
  req->version_minor = minor - '0';
  req->keep_alive = req->version_minor == 1;
  c->p += 10;
  return HTTP_OK;
}

static int parse_u64(const char *s, size_t n, uint64_t *out) {
  uint64_t v = 0;
  if (n == 0)
    return HTTP_E_LENGTH;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return HTTP_E_LENGTH;
    uint64_t d = (uint64_t)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10)
      return HTTP_E_LENGTH;
    v = v * 10 + d;
  }
  *out = v;
  return HTTP_OK;
}

static uint32_t parse_hex32(const char *s, size_t n, int *ok) {
  uint32_t v = 0;
  *ok = n > 2 && n <= 10 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  for (size_t i = 2; *ok && i < n; i++) {
    int ch = lower((unsigned char)s[i]);
    if (ch >= '0' && ch <= '9')
      v = v << 4 | (uint32_t)(ch - '0');
    else if (ch >= 'a' && ch <= 'f')
      v = v << 4 | (uint32_t)(ch - 'a' + 10);
    else
      *ok = 0;
  }
  return v;
}

static int apply_header(struct http_request *req, const struct http_header *h) {
  if (name_is(h, "content-length")) {
    uint64_t v;
    if (parse_u64(h->value, h->value_len, &v) != HTTP_OK)
      return HTTP_E_LENGTH;
    if (req->content_length && req->content_length != v)
      return HTTP_E_LENGTH; /* conflicting lengths: request smuggling */
    req->content_length = v;
  } else if (name_is(h, "transfer-encoding")) {
    req->chunked = h->value_len == 7 && memcmp(h->value, "chunked", 7) == 0;
  } else if (name_is(h, "connection")) {
    if (h->value_len == 5 && memcmp(h->value, "close", 5) == 0)
      req->keep_alive = 0;
    else if (h->value_len == 10 && memcmp(h->value, "keep-alive", 10) == 0)
      req->keep_alive = 1;
  } else if (name_is(h, "x-ucov-magic")) {
    int ok;
    uint32_t v = parse_hex32(h->value, h->value_len, &ok);
    if (ok && v == 0xdeadbeef)
      req->magic = 1; /* the rare path a fuzzer finds through comparison operands */
  }
  return HTTP_OK;
}

static int parse_headers(struct cursor *c, struct http_request *req) {
  for (;;) {
    if (c->end - c->p < 2)
      return HTTP_E_TRUNCATED;
    if (c->p[0] == '\r' && c->p[1] == '\n') {
      c->p += 2;
      return HTTP_OK;
    }
    if (req->nheaders == HTTP_MAX_HEADERS)
      return HTTP_E_TOO_MANY;
    struct http_header *h = &req->headers[req->nheaders];
    h->name = c->p;
    while (!at_end(c) && is_tchar((unsigned char)*c->p))
      c->p++;
    h->name_len = (size_t)(c->p - h->name);
    if (h->name_len == 0 || at_end(c) || *c->p != ':')
      return at_end(c) ? HTTP_E_TRUNCATED : HTTP_E_HEADER;
    c->p++;
    while (!at_end(c) && (*c->p == ' ' || *c->p == '\t'))
      c->p++;
    h->value = c->p;
    while (!at_end(c) && *c->p != '\r')
      c->p++;
    if (c->end - c->p < 2)
      return HTTP_E_TRUNCATED;
    if (c->p[1] != '\n')
      return HTTP_E_HEADER;
    h->value_len = (size_t)(c->p - h->value);
    while (h->value_len &&
           (h->value[h->value_len - 1] == ' ' || h->value[h->value_len - 1] == '\t'))
      h->value_len--;
    c->p += 2;
    req->nheaders++;
    int err = apply_header(req, h);
    if (err)
      return err;
  }
}

static int parse_chunked(struct cursor *c, struct http_request *req) {
  uint64_t total = 0;
  for (;;) {
    uint64_t size = 0;
    int digits = 0;
    while (!at_end(c) && *c->p != '\r') {
      int ch = lower((unsigned char)*c->p);
      int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
      if (d < 0 || ++digits > 15)
        return HTTP_E_CHUNK;
      size = size << 4 | (uint64_t)d;
      c->p++;
    }
    if (digits == 0 || c->end - c->p < 2 || c->p[1] != '\n')
      return at_end(c) ? HTTP_E_TRUNCATED : HTTP_E_CHUNK;
    c->p += 2;
    if ((uint64_t)(c->end - c->p) < size + 2)
      return HTTP_E_TRUNCATED;
    c->p += size;
    if (c->p[0] != '\r' || c->p[1] != '\n')
      return HTTP_E_CHUNK;
    c->p += 2;
    total += size;
    if (size == 0) {
      req->body_len = total;
      return HTTP_OK;
    }
  }
}

int http_parse(const char *buf, size_t len, struct http_request *req) {
  struct cursor c = {buf, buf + len};
  memset(req, 0, sizeof(*req));
  int err = parse_method(&c, &req->method);
  if (!err)
    err = parse_target(&c, req);
  if (!err)
    err = parse_version(&c, req);
  if (!err)
    err = parse_headers(&c, req);
  if (err)
    return err;
  req->body_offset = (size_t)(c.p - buf);
  if (req->chunked)
    return parse_chunked(&c, req);
  if ((uint64_t)(c.end - c.p) < req->content_length)
    return HTTP_E_TRUNCATED;
  req->body_len = req->content_length;
  return HTTP_OK;
}

const char *http_strerror(int err) {
  switch (err) {
  case HTTP_OK:
    return "ok";
  case HTTP_E_METHOD:
    return "bad method";
  case HTTP_E_TARGET:
    return "bad request target";
  case HTTP_E_VERSION:
    return "bad version";
  case HTTP_E_HEADER:
    return "bad header";
  case HTTP_E_LENGTH:
    return "bad content-length";
  case HTTP_E_TRUNCATED:
    return "truncated";
  case HTTP_E_TOO_MANY:
    return "too many headers";
  case HTTP_E_CHUNK:
    return "bad chunk";
  default:
    return "unknown error";
  }
}
