//! Unit tests of the ACP seam.

mod conformance;
