//! Test doubles for the adapter's seams, one per seam, in one home: the editor
//! ([`TestEditor`]); the agent core's is the fuzzer's `InstantCore`. Built in unit tests and, with
//! the `testing` feature (which the integration tests turn on through the crate's dev-dependency
//! on itself), for `tests/it/`; not part of the adapter's interface.

mod editor;

pub use editor::{EditorRequest, TestEditor};
