//! Bytes read from a pipe or a file as text: checked with the fast check, and converted lossily
//! only when they are not UTF-8 (the lossy conversion checks byte by byte, several times slower on
//! every line claude writes).

use std::borrow::Cow;

/// `bytes` as text, invalid UTF-8 replaced.
pub(crate) fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}
