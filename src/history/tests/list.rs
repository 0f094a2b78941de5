//! Listing stored sessions for `session/list`.
