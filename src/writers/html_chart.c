/* SPDX-License-Identifier: MIT */
/*
 * The store's charts: coverage per build (div#history, svg#chart: a
 * g.build per build, data-build and data-percent, its line coverage as ucov
 * history gives it) and, for a report of one test, that campaign's reach
 * over time (div#campaign-history, svg#campaign: a g.reach per time a push
 * first counted something, data-at, data-lines, data-functions,
 * data-branches: reached so far, data-percent: of this report's lines).
 * Each measure is a polyline per run of points that have it (0 found: no
 * point there, and the line breaks) and a circle per point (data-kind,
 * data-pc); the point's hover tells all three.
 */
#include "html_chart.h"

#include <inttypes.h>
#include <time.h>

/* A percentage of found, and as ucov history prints it. */
static double pc_of(uint64_t hit, uint64_t found) {
  return found ? 100.0 * (double)hit / (double)found : 0.0;
}

/* The frame: its size and margins, where point i and a percentage go. */
static const double chart_w = 720, chart_h = 160, chart_left = 40, chart_top = 10, chart_right = 10,
                    chart_bottom = 20;

static double chart_y(double pc) {
  return chart_top + (chart_h - chart_top - chart_bottom) * (100 - pc) / 100.0;
}

/* Where point i goes across: builds evenly, a campaign's times to scale. */
static double x_of(const struct html_chart *c, size_t i, double step) {
  if (!c->by_time || c->n < 2 || c->v[c->n - 1].created <= c->v[0].created)
    return chart_left + step * (double)i;
  double span = (double)(c->v[c->n - 1].created - c->v[0].created);
  return chart_left +
         (chart_w - chart_left - chart_right) * (double)(c->v[i].created - c->v[0].created) / span;
}

static void series(FILE *f, const struct html_chart *c, int k, double step) {
  int open = 0;
  for (size_t i = 0; i < c->n; i++) {
    const struct html_build *b = &c->v[i];
    if (!b->found[k]) {
      if (open)
        fputs("\"/>", f);
      open = 0;
      continue;
    }
    if (!open)
      fprintf(f, "<polyline class=\"s%d\" points=\"", k);
    fprintf(f, "%s%.1f,%.1f", open ? " " : "", x_of(c, i, step),
            chart_y(pc_of(b->hit[k], b->found[k])));
    open = 1;
  }
  if (open)
    fputs("\"/>", f);
}

/* The x axis: under about eight points (the first, the last, evenly
 * between), a build's revision (its first 12 characters), else its date; a
 * campaign's times of day (UTC), none nearer than 64 pixels to the one
 * before. The first label starts at its point, the last ends there. */
static void axis(FILE *f, const struct html_chart *c, double step) {
  size_t n = c->n, every = n > 8 ? (n + 7) / 8 : 1;
  double last_x = -1e9;
  for (size_t i = 0; i < n; i++) {
    if (i + 1 < n && (i % every || (i && n - 1 - i < (every + 1) / 2)))
      continue; /* (one too near the last gives way to it) */
    double x = x_of(c, i, step);
    if (c->by_time && i + 1 < n && (x - last_x < 64 || x_of(c, n - 1, step) - x < 64))
      continue;
    last_x = x;
    const struct html_build *b = &c->v[i];
    char label[16];
    time_t t = (time_t)b->created;
    struct tm tm;
    if (!c->by_time && b->revision && *b->revision)
      snprintf(label, sizeof(label), "%.12s", b->revision);
    else
      strftime(label, sizeof(label), c->by_time ? "%H:%M:%S" : "%Y-%m-%d", gmtime_r(&t, &tm));
    const char *anchor = n > 1 && i == 0 ? "start" : n > 1 && i + 1 == n ? "end" : "middle";
    fprintf(f, "<text class=\"axis x\" style=\"text-anchor:%s\" x=\"%.1f\" y=\"%.0f\">", anchor, x,
            chart_h - 5);
    html_put_text(f, label);
    fputs("</text>", f);
  }
}

/* A point's group: its data, its hover, a circle per measure it has. */
static void point(FILE *f, const struct html_chart *c, size_t i, double step) {
  static const char *const kind[3] = {"lines", "functions", "branches"};
  const struct html_build *b = &c->v[i];
  char when[32], pcs[3][32];
  time_t t = (time_t)b->created;
  struct tm tm;
  strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
  for (int k = 0; k < 3; k++)
    if (b->found[k])
      snprintf(pcs[k], sizeof(pcs[k]), "%.2f", pc_of(b->hit[k], b->found[k]));
    else
      snprintf(pcs[k], sizeof(pcs[k]), "-");
  if (c->by_time) {
    fprintf(f,
            "<g class=\"%s\" data-at=\"%" PRId64 "\" data-lines=\"%" PRIu64
            "\" data-functions=\"%" PRIu64 "\" data-branches=\"%" PRIu64
            "\" data-percent=\"%s\"><title>%s\nlines %" PRIu64 " (%s%%), functions %" PRIu64
            " (%s%%), branches %" PRIu64 " (%s%%)</title>",
            c->group, b->created, b->hit[0], b->hit[1], b->hit[2], pcs[0], when, b->hit[0], pcs[0],
            b->hit[1], pcs[1], b->hit[2], pcs[2]);
  } else {
    fprintf(f,
            "<g class=\"%s\" data-build=\"%" PRId64 "\" data-percent=\"%s\"><title>build %" PRId64
            " ",
            c->group, b->id, pcs[0], b->id);
    html_put_text(f, b->revision && *b->revision ? b->revision : "-");
    fprintf(f, " %s\nlines %s%%, functions %s%%, branches %s%%</title>", when, pcs[0], pcs[1],
            pcs[2]);
  }
  for (int k = 0; k < 3; k++)
    if (b->found[k])
      fprintf(f,
              "<circle class=\"s%d\" data-kind=\"%s\" data-pc=\"%s\" cx=\"%.1f\" "
              "cy=\"%.1f\" r=\"3.5\"/>",
              k, kind[k], pcs[k], x_of(c, i, step), chart_y(pc_of(b->hit[k], b->found[k])));
  fputs("</g>", f);
}

void html_put_chart(FILE *f, const struct html_chart *c) {
  size_t n = c->n;
  double step = n > 1 ? (chart_w - chart_left - chart_right) / (double)(n - 1) : 0;
  fprintf(f,
          "<div id=\"%s\" class=\"history\"><svg id=\"%s\" class=\"chart\" "
          "xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 "
          "%.0f %.0f\">",
          c->by_time ? "campaign-history" : "history", c->id, chart_w, chart_h, chart_w, chart_h);
  for (int p = 0; p <= 100; p += 50)
    fprintf(f,
            "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
            "<text class=\"axis\" x=\"%.0f\" y=\"%.1f\">%d%%</text>",
            chart_left, chart_w - chart_right, chart_y(p), chart_y(p), chart_left - 4,
            chart_y(p) + 4, p);
  for (int k = 0; k < 3; k++)
    series(f, c, k, step);
  axis(f, c, step);
  for (size_t i = 0; i < n; i++)
    point(f, c, i, step);
  fputs("</svg><div class=\"legend\"><span class=\"s0\">&#9679; lines</span> <span "
        "class=\"s1\">&#9679; functions</span> <span class=\"s2\">&#9679; branches</span> ",
        f);
  if (c->by_time) {
    fputs("reached by campaign <b>", f);
    html_put_text(f, c->name ? c->name : "");
    fputs("</b> so far, of this report's, at each push that first counted one (UTC)", f);
  } else {
    html_put_text(f, c->legend ? c->legend : "");
  }
  fputs("</div></div>\n", f);
}

void html_put_charts(FILE *f, const struct html_extra *x) {
  if (x->n_builds)
    html_put_chart(f, &(struct html_chart){.id = "chart",
                                           .group = "build",
                                           .v = x->builds,
                                           .n = x->n_builds,
                                           .legend = "per build, oldest first (a build without "
                                                     "one has no point)"});
  if (x->campaign)
    html_put_chart(f, &(struct html_chart){.id = "campaign",
                                           .group = "reach",
                                           .v = x->reach,
                                           .n = x->n_reach,
                                           .by_time = 1,
                                           .name = x->campaign});
}
