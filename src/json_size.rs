//! The size of a value's JSON, measured without building it: for a message that may be MiBs (a
//! Write's whole file), so that it is allocated once at its size, or streamed when too big to hold.

/// The bytes `serde_json::to_writer` would write for `value`; `None` if it cannot be serialised.
pub(crate) fn json_size(value: &impl serde::Serialize) -> Option<usize> {
    let mut counter = ByteCounter(0);
    serde_json::to_writer(&mut counter, value).ok()?;
    Some(counter.0)
}

/// Counts the bytes written to it and keeps none.
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::json_size;

    #[test]
    fn the_size_is_that_of_the_json_written() {
        let value = serde_json::json!({"content": "w\u{e9}\n".repeat(1000), "n": [1, 2.5, null]});
        let written = serde_json::to_vec(&value).unwrap();
        assert_eq!(json_size(&value), Some(written.len()));
    }
}
