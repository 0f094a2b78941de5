//! Unit tests of the ACP seam.

mod conformance;
mod gateway;
