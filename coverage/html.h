/*
 * html.h — the coverage report as one self-contained HTML page: no network, no scripts from
 * elsewhere; every text that comes from sources or program output is escaped.
 */
#ifndef FAILRUN_HTML_H
#define FAILRUN_HTML_H

#include <jansson.h>
#include <stdio.h>

/* `text` with &, <, >, " and ' escaped for HTML text and attribute values. */
void html_escape(FILE *out, const char *text);
/* Write the page for the report failrun cov built (cmd_cov.c). Exits with a message on error. */
void html_write_report(json_t *report, const char *path);

#endif
