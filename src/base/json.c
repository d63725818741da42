/* SPDX-License-Identifier: MIT */
/* The JSON reader: recursive descent into nodes taken from an arena. */
#include "json.h"

#include <stdlib.h>
#include <string.h>

/* Arena blocks, chained; nodes and strings are taken from the newest. */
struct block {
  struct block *prev;
  size_t used, size;
  char data[];
};

struct parser {
  const char *p, *end, *start;
  struct json_doc *doc;
  int depth;
};

static void *take(struct json_doc *doc, size_t n) {
  n = (n + 15) & ~(size_t)15;
  struct block *b = doc->arena;
  if (!b || b->size - b->used < n) {
    size_t size = n > 65536 ? n : 65536;
    struct block *nb = malloc(sizeof(*nb) + size);
    if (!nb)
      return NULL;
    nb->prev = b;
    nb->used = 0;
    nb->size = size;
    doc->arena = b = nb;
  }
  void *p = b->data + b->used;
  b->used += n;
  return p;
}

static int fail(struct parser *ps, const char *what) {
  if (!ps->doc->error[0])
    snprintf(ps->doc->error, sizeof(ps->doc->error), "%s at byte %zu", what,
             (size_t)(ps->p - ps->start));
  return -1;
}

static void skip_ws(struct parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned)(c - 'A' + 10);
    else
      return -1;
  }
  *out = v;
  return 0;
}

static size_t put_utf8(char *o, unsigned c) {
  if (c < 0x80) {
    o[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    o[0] = (char)(0xc0 | c >> 6);
    o[1] = (char)(0x80 | (c & 0x3f));
    return 2;
  }
  if (c < 0x10000) {
    o[0] = (char)(0xe0 | c >> 12);
    o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
    o[2] = (char)(0x80 | (c & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | c >> 18);
  o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
  o[3] = (char)(0x80 | (c & 0x3f));
  return 4;
}

/* A string at ps->p (the opening quote): decoded into the arena. */
/* (Long: one case per JSON escape, over one output cursor.) */
static int parse_string(struct parser *ps, const char **out, size_t *len) {
  const char *q = ++ps->p;
  int plain = 1;
  while (q < ps->end && *q != '"') {
    if (*q == '\\') {
      plain = 0;
      q++;
    } else if ((unsigned char)*q < 0x20) {
      ps->p = q;
      return fail(ps, "control character in a string");
    }
    q++;
  }
  if (q >= ps->end)
    return fail(ps, "unterminated string");
  size_t n = (size_t)(q - ps->p);
  char *s = take(ps->doc, n + 1); /* decoding never grows a string */
  if (!s)
    return fail(ps, "out of memory");
  if (plain) {
    memcpy(s, ps->p, n);
    s[n] = 0;
    *out = s;
    *len = n;
    ps->p = q + 1;
    return 0;
  }
  size_t o = 0;
  for (const char *r = ps->p; r < q; r++) {
    if (*r != '\\') {
      s[o++] = *r;
      continue;
    }
    r++;
    switch (*r) {
    case '"':
    case '\\':
    case '/':
      s[o++] = *r;
      break;
    case 'b':
      s[o++] = '\b';
      break;
    case 'f':
      s[o++] = '\f';
      break;
    case 'n':
      s[o++] = '\n';
      break;
    case 'r':
      s[o++] = '\r';
      break;
    case 't':
      s[o++] = '\t';
      break;
    case 'u': {
      unsigned c, lo;
      if (q - r < 5 || hex4(r + 1, &c)) {
        ps->p = r;
        return fail(ps, "bad \\u escape");
      }
      r += 4;
      if (c >= 0xd800 && c < 0xdc00 && q - r >= 7 && r[1] == '\\' && r[2] == 'u' &&
          !hex4(r + 3, &lo) && lo >= 0xdc00 && lo < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        r += 6;
      }
      o += put_utf8(s + o, c);
      break;
    }
    default:
      ps->p = r;
      return fail(ps, "bad escape");
    }
  }
  s[o] = 0;
  *out = s;
  *len = o;
  ps->p = q + 1;
  return 0;
}

static int parse_value(struct parser *ps, struct json *v);

static int parse_members(struct parser *ps, struct json *v, char close, int object) {
  ps->p++;
  struct json **tail = &v->first;
  skip_ws(ps);
  if (ps->p < ps->end && *ps->p == close) {
    ps->p++;
    return 0;
  }
  for (;;) {
    struct json *m = take(ps->doc, sizeof(*m));
    if (!m)
      return fail(ps, "out of memory");
    memset(m, 0, sizeof(*m));
    skip_ws(ps);
    if (object) {
      size_t klen;
      if (ps->p >= ps->end || *ps->p != '"')
        return fail(ps, "expected a key");
      if (parse_string(ps, &m->key, &klen))
        return -1;
      skip_ws(ps);
      if (ps->p >= ps->end || *ps->p != ':')
        return fail(ps, "expected ':'");
      ps->p++;
    }
    if (parse_value(ps, m))
      return -1;
    *tail = m;
    tail = &m->next;
    v->len++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ',') {
      ps->p++;
      continue;
    }
    if (ps->p < ps->end && *ps->p == close) {
      ps->p++;
      return 0;
    }
    return fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static int parse_value(struct parser *ps, struct json *v) {
  skip_ws(ps);
  if (ps->p >= ps->end)
    return fail(ps, "unexpected end");
  if (++ps->depth > 200)
    return fail(ps, "nested too deep");
  int ret = 0;
  char c = *ps->p;
  if (c == '{' || c == '[') {
    v->type = c == '{' ? JSON_OBJECT : JSON_ARRAY;
    ret = parse_members(ps, v, c == '{' ? '}' : ']', c == '{');
  } else if (c == '"') {
    v->type = JSON_STRING;
    ret = parse_string(ps, &v->string, &v->len);
  } else if (c == 't' && ps->end - ps->p >= 4 && !memcmp(ps->p, "true", 4)) {
    v->type = JSON_BOOL;
    v->boolean = 1;
    ps->p += 4;
  } else if (c == 'f' && ps->end - ps->p >= 5 && !memcmp(ps->p, "false", 5)) {
    v->type = JSON_BOOL;
    ps->p += 5;
  } else if (c == 'n' && ps->end - ps->p >= 4 && !memcmp(ps->p, "null", 4)) {
    v->type = JSON_NULL;
    ps->p += 4;
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    const char *q = ps->p;
    int integer = 1, neg = c == '-';
    uint64_t u = 0;
    if (neg)
      q++;
    if (q >= ps->end || *q < '0' || *q > '9')
      return fail(ps, "bad number");
    for (; q < ps->end && *q >= '0' && *q <= '9'; q++) {
      uint64_t d = (uint64_t)(*q - '0');
      if (u > (UINT64_MAX - d) / 10)
        integer = 0; /* too large for 64 bits: a double only */
      u = u * 10 + d;
    }
    if (q < ps->end && (*q == '.' || *q == 'e' || *q == 'E')) {
      integer = 0;
      for (q++; q < ps->end && strchr("0123456789+-eE", *q); q++)
        ;
    }
    char buf[64];
    size_t n = (size_t)(q - ps->p);
    if (n >= sizeof(buf))
      n = sizeof(buf) - 1;
    memcpy(buf, ps->p, n);
    buf[n] = 0;
    v->type = JSON_NUMBER;
    v->number = strtod(buf, NULL);
    v->is_u64 = integer && !neg;
    v->u64 = v->is_u64 ? u : 0;
    ps->p = q;
  } else {
    ret = fail(ps, "unexpected character");
  }
  ps->depth--;
  return ret;
}

int json_parse(struct json_doc *doc, const char *text, size_t len, size_t *used) {
  memset(doc, 0, sizeof(*doc));
  struct parser ps = {text, text + len, text, doc, 0};
  struct json *root = take(doc, sizeof(*root));
  if (!root) {
    snprintf(doc->error, sizeof(doc->error), "out of memory");
    return -1;
  }
  memset(root, 0, sizeof(*root));
  if (parse_value(&ps, root)) {
    json_free(doc);
    return -1;
  }
  skip_ws(&ps);
  doc->root = root;
  if (used)
    *used = (size_t)(ps.p - text);
  return 0;
}

void json_free(struct json_doc *doc) {
  struct block *b = doc->arena;
  while (b) {
    struct block *prev = b->prev;
    free(b);
    b = prev;
  }
  doc->arena = NULL;
  doc->root = NULL;
}

const struct json *json_get(const struct json *obj, const char *key) {
  if (!obj || obj->type != JSON_OBJECT)
    return NULL;
  for (const struct json *m = obj->first; m; m = m->next)
    if (m->key && strcmp(m->key, key) == 0)
      return m;
  return NULL;
}

uint64_t json_u64(const struct json *v) {
  return v && v->type == JSON_NUMBER && v->is_u64 ? v->u64 : 0;
}

const char *json_str(const struct json *v) {
  return v && v->type == JSON_STRING ? v->string : NULL;
}

void json_put_string(FILE *f, const char *s) {
  putc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      putc(*p, f);
  }
  putc('"', f);
}
