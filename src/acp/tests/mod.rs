//! Unit tests of the ACP seam.

mod conformance;
mod declared;
mod gateway;
