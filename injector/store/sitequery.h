/*
 * sitequery.h — reads and marks of the stored sites for the parts above the store: a site's
 * stored stack and names, every site's frames (wrappers, the source scope), the sites failrun cov
 * classifies. Rows come as plain values; symbolising them stays with the caller.
 */
#ifndef FAILRUN_STORE_SITEQUERY_H
#define FAILRUN_STORE_SITEQUERY_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A site's stored frames (JSON text), function and largest request, as copies (each NULL when
   the column is); false when the site is unknown. */
bool store_site_stack(sqlite3 *db, const char *site, char **frames, char **function,
                      int64_t *max_size);
/* A site's failpoint name and kind (sites.name, sites.kind), as copies (NULL when the column
   is); false when the site is unknown. */
bool store_site_name_kind(sqlite3 *db, const char *site, char **name, char **kind);

/* The frames (JSON text) of every stored site. */
void store_site_frames_each(sqlite3 *db, void (*each)(void *context, const char *frames),
                            void *context);

/* The sites not marked yet that `bookkeeping` says allocate for an allocation wrapper: it names
   the function that does (into `function`, `size` bytes), which is stored (sites.bookkeeping). */
void store_sites_mark_bookkeeping(sqlite3 *db,
                                  bool (*bookkeeping)(void *context, const char *frames,
                                                      char *function, size_t size),
                                  void *context);

/* The sites whose source file was never looked up: `file_of` names it from the frames (into
   `file`, `size` bytes), `outside` says whether it is outside the scope; both are stored. */
struct store_site_source {
    void (*file_of)(void *context, const char *frames, char *file, size_t size);
    bool (*outside)(void *context, const char *file);
    void *context;
};
void store_sites_mark_source(sqlite3 *db, const struct store_site_source *how);

/* Every site as failrun cov lists it, in the order sites were stored: how many fault runs failed
   it. Texts may be NULL. */
struct store_cov_site {
    const char *id, *function;
    int64_t max_size;
    bool nofail;
    const char *name, *frames;
    int64_t fault_runs;
    const char *kind;
};
void store_cov_sites_each(sqlite3 *db,
                          void (*each)(void *context, const struct store_cov_site *row),
                          void *context);

#endif
