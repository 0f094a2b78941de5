//! How this process's allocator treats big blocks: a 10 MiB file or a 20 MiB tool result passes
//! through the adapter as one string, and the adapter's peak memory should be that string, once.
//!
//! glibc's malloc takes blocks over its "mmap threshold" straight from the OS (and gives them back
//! on free, and grows them with `mremap`, which moves pages instead of copying them), but it raises
//! that threshold each time such a block is freed, up to 32 MiB. After the first big line, the next
//! ones then come from the heap: growing a line buffer copies it (old and new both touched), and a
//! freed one stays resident. Pinning the threshold at 1 MiB keeps every big block on the first path
//! (measured on a 10 MiB Write through a permission prompt: the adapter's growth went from 28.4 to
//! 20.6 MiB). Other allocators (macOS's, Windows' heap, musl) are left as they are.

/// Blocks of at least this many bytes are mapped from the OS, whatever came before. A buffer that
/// will grow big is best grown straight to this size: doubling through the heap leaves each smaller
/// buffer behind as free memory that stays resident.
pub const MAP_ABOVE_BYTES: usize = 1024 * 1024;

/// Call once, at start-up, before the first big allocation.
pub fn keep_big_blocks_apart() {
    imp::keep_big_blocks_apart(MAP_ABOVE_BYTES as i32);
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod imp {
    pub(super) fn keep_big_blocks_apart(bytes: i32) {
        // SAFETY: mallopt only sets a tunable of glibc's allocator; setting M_MMAP_THRESHOLD also
        // turns its dynamic adjustment off. It fails only for values out of range (not this one).
        unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, bytes) };
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod imp {
    pub(super) fn keep_big_blocks_apart(_bytes: i32) {}
}
