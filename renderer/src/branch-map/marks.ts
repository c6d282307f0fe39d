/** Names of the performance marks the branch views set (the e2e perf test reads them; so can devtools). */

/** A session's view was shown whole (an open, a reload). */
export const VIEW_ARRIVED_MARK = "arbor:view-arrived";
/** The branch map's data (`session.branches`) arrived. */
export const MAP_DATA_MARK = "arbor:map-data";
/** The first frame that shows the map's rows. */
export const MAP_PAINTED_MARK = "arbor:map-painted";
