/* SPDX-License-Identifier: MIT */
/* What the store adds to an HTML page (report_store.c). */
#ifndef UCOV_CLI_REPORT_STORE_H
#define UCOV_CLI_REPORT_STORE_H

#include "writers/html.h"
#include "base/model.h"
#include "store/store.h"

/*
 * The tests of every line of finished model m that the store at url has
 * (filter f, as the report read it) and every build's coverage, into x.
 * 0, or -1, said (x then holds what was gathered; free it either way).
 */
int report_store_html(const char *url, const struct store_filter *f, struct cov_model *m,
                      struct html_extra *x);
void report_store_html_free(struct html_extra *x);

#endif
