/* SPDX-License-Identifier: MIT */
/*
 * The store's charts on an HTML page (html_chart.c): coverage per build,
 * oldest first, and a campaign's reach over time (ucov history --test).
 */
#ifndef UCOV_WRITERS_HTML_CHART_H
#define UCOV_WRITERS_HTML_CHART_H

#include <stddef.h>
#include <stdio.h>

#include "html.h"

struct html_chart {
  const char *id;    /* the svg's id: "chart" (builds), "campaign" */
  const char *group; /* each point's group class: "build", "reach" */
  const struct html_build *v;
  size_t n;
  int by_time;        /* a campaign: points named by time, counts so far */
  const char *legend; /* after the three kinds (builds) */
  const char *name;   /* the campaign's test (by_time) */
};

/* One chart: an inline SVG, a group per point holding a circle per measure
 * it has, the points named along the x axis. */
void html_put_chart(FILE *f, const struct html_chart *c);
/* The charts of what the store adds: its builds', and a campaign's. */
void html_put_charts(FILE *f, const struct html_extra *x);
/* s with < and & escaped (html.c). */
void html_put_text(FILE *f, const char *s);

#endif
