/* SPDX-License-Identifier: MIT */
/* The self-contained HTML report, and differential coverage against a baseline. */
#ifndef UCOV_REPORT_HTML_H
#define UCOV_REPORT_HTML_H

#include <stdio.h>

#include "diff.h"
#include "model.h"

/* The HTML report of a finished model (diff: NULL, or its categories). */
int html_write(const struct cov_model *m, FILE *f, const char *title, const struct cov_diff *diff);

#endif
