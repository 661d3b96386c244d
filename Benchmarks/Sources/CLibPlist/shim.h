#ifndef HANGAR_BENCH_LIBPLIST_SHIM_H
#define HANGAR_BENCH_LIBPLIST_SHIM_H

// libplist, a peer codec for the benchmark (apt: libplist-dev, pkg-config: libplist-2.0). The 2.2 API:
// plist_from_bin / plist_from_xml return nothing (a NULL node on failure); plist_to_bin / plist_to_xml
// hand back a buffer that plist_to_bin_free / plist_to_xml_free release; plist_free releases a node tree.
#include <plist/plist.h>

#endif
