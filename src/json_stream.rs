//! Writing one big value's JSON into a pipe a chunk at a time: serialised on a blocking thread
//! into 64 KiB chunks that are written as they come, so at most a few chunks exist at once,
//! whatever the value's size (a Write's whole file, to the editor or back to claude).

use tokio::io::{AsyncWrite, AsyncWriteExt};

/// Serialises one value (without a newline) into the writer it is given.
pub(crate) type Serialise = Box<dyn FnOnce(&mut dyn std::io::Write) -> std::io::Result<()> + Send>;

/// The size of the chunks handed from the serialiser to the writer.
pub(crate) const CHUNK_BYTES: usize = 64 * 1024;

/// Writes what `serialise` writes into `out`, chunk by chunk; no newline, no flush. An error
/// after the first chunk leaves half a value in `out`: nothing written after it reads as JSON.
pub(crate) async fn write_in_chunks<W: AsyncWrite + Unpin>(
    out: &mut W,
    serialise: Serialise,
) -> std::io::Result<()> {
    let (chunks, mut received) = tokio::sync::mpsc::channel::<Vec<u8>>(2);
    let serialiser = tokio::task::spawn_blocking(move || {
        let mut writer = ChunkWriter {
            chunk: Vec::with_capacity(CHUNK_BYTES),
            chunks,
        };
        serialise(&mut writer)?;
        writer.send_chunk()
    });
    while let Some(chunk) = received.recv().await {
        // On a failed write `received` is dropped, which ends the serialiser too.
        out.write_all(&chunk).await?;
    }
    match serialiser.await {
        Ok(result) => result,
        Err(error) => Err(std::io::Error::other(error)),
    }
}

/// `std::io::Write` into a channel of chunks, for serialising off the runtime.
struct ChunkWriter {
    chunk: Vec<u8>,
    chunks: tokio::sync::mpsc::Sender<Vec<u8>>,
}

impl ChunkWriter {
    fn send_chunk(&mut self) -> std::io::Result<()> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let full = std::mem::replace(&mut self.chunk, Vec::with_capacity(CHUNK_BYTES));
        self.chunks
            .blocking_send(full)
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
}

impl std::io::Write for ChunkWriter {
    /// Takes at most what fills the chunk: serde writes a long unescaped string in one call.
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let taken = bytes.len().min(CHUNK_BYTES - self.chunk.len());
        self.chunk.extend_from_slice(&bytes[..taken]);
        if self.chunk.len() >= CHUNK_BYTES {
            self.send_chunk()?;
        }
        Ok(taken)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_big_value_arrives_whole_and_exact() {
        let value = serde_json::json!({"content": "a \"quoted\" é\n".repeat(50_000), "n": 1});
        let (mut ours, mut theirs) = tokio::io::duplex(CHUNK_BYTES);
        let writing = tokio::spawn(async move {
            let serialise: Serialise = Box::new(move |out| {
                serde_json::to_writer(out, &value).map_err(std::io::Error::other)
            });
            write_in_chunks(&mut ours, serialise).await
        });
        let mut read = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut theirs, &mut read)
            .await
            .unwrap();
        writing.await.unwrap().unwrap();
        let back: serde_json::Value = serde_json::from_slice(&read).unwrap();
        assert_eq!(back["content"].as_str().unwrap().len(), 14 * 50_000);
        assert_eq!(back["n"], 1);
    }
}
