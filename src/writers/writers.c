/* SPDX-License-Identifier: MIT */
/*
 * The report formats' table (writers.h): each format's command-line name and
 * its writer behind the one signature every writer has.
 */
#include "writers.h"

#include "html.h"

static int w_lcov(const struct report_ctx *c, FILE *f) {
  return c->lcov_format == 2 ? lcov_write2(c->m, f) : lcov_write(c->m, f);
}
static int w_cobertura(const struct report_ctx *c, FILE *f) {
  return cobertura_write(c->m, f);
}
static int w_json(const struct report_ctx *c, FILE *f) {
  return ucov_json_write(c->m, f, c->diff);
}
static int w_html(const struct report_ctx *c, FILE *f) {
  return html_write(c->m, f, c->title, c->diff, c->html);
}
static int w_json_summary(const struct report_ctx *c, FILE *f) {
  return json_summary_write(c->m, f, c->diff);
}
static int w_text(const struct report_ctx *c, FILE *f) {
  return text_write(c->m, f, c->diff);
}
static int w_markdown(const struct report_ctx *c, FILE *f) {
  return markdown_write(c->m, f, c->title, c->html_url, c->diff, 10);
}
static int w_sonarqube(const struct report_ctx *c, FILE *f) {
  return sonarqube_write(c->m, f);
}
static int w_coveralls(const struct report_ctx *c, FILE *f) {
  return coveralls_write(c->m, f);
}
static int w_jacoco(const struct report_ctx *c, FILE *f) {
  return jacoco_write(c->m, f, c->title);
}

const struct report_format report_formats[REPORT_FORMATS] = {
    [FMT_LCOV] = {.option = "lcov", .write = w_lcov, .merge = 1},
    [FMT_COBERTURA] = {.option = "cobertura", .write = w_cobertura},
    [FMT_JSON] = {.option = "json", .write = w_json, .merge = 1},
    [FMT_HTML] = {.option = "html", .write = w_html},
    [FMT_JSON_SUMMARY] = {.option = "json-summary", .write = w_json_summary},
    [FMT_TEXT] = {.option = "text", .write = w_text},
    [FMT_MARKDOWN] = {.option = "markdown", .write = w_markdown},
    [FMT_SONARQUBE] = {.option = "sonarqube", .write = w_sonarqube},
    [FMT_COVERALLS] = {.option = "coveralls", .write = w_coveralls},
    [FMT_JACOCO] = {.option = "jacoco", .write = w_jacoco},
};
