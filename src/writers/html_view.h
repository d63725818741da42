/* SPDX-License-Identifier: MIT */
/* The HTML page's style and script (html_view.c), which html.c writes in. */
#ifndef UCOV_WRITERS_HTML_VIEW_H
#define UCOV_WRITERS_HTML_VIEW_H

extern const char html_style[];
extern const char html_script[];

#endif
