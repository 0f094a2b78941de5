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
//!
//! glibc also gives each new thread a heap of its own ("arena"), and keeps what a thread freed
//! resident there for that thread: a `session/load` replays on a blocking thread and serialises a
//! big update on another, and each kept its own few hundred KiB beside the main heap's. The
//! adapter's threads are few and mostly idle, so they share the one heap ([`one_heap`]); what a
//! long job frees is given back when it ends ([`give_back_free`]).

/// Blocks of at least this many bytes are mapped from the OS, whatever came before. A buffer that
/// will grow big is best grown straight to this size: doubling through the heap leaves each smaller
/// buffer behind as free memory that stays resident.
pub const MAP_ABOVE_BYTES: usize = 1024 * 1024;

/// Call once, at start-up, before the first big allocation.
pub fn keep_big_blocks_apart() {
    imp::keep_big_blocks_apart(MAP_ABOVE_BYTES as i32);
}

/// Every thread allocates from the main heap. Call once, at start-up, before a second thread.
pub fn one_heap() {
    imp::one_heap();
}

/// Gives the memory of `buffer` past its length and `room` more bytes back to the system, where
/// the allocator does that without moving the bytes: glibc shrinks a block in place (a mapped one
/// by unmapping its tail pages). For a buffer a big line was read into, which now holds one
/// string of that line. Elsewhere the buffer is left as it is (a shrink may copy it there).
pub fn give_back_spare(buffer: &mut Vec<u8>, room: usize) {
    let keep = buffer.len().saturating_add(room);
    // Less than a page past `keep` gives nothing back.
    if buffer.capacity().saturating_sub(keep) >= PAGE_BYTES {
        imp::shrink_in_place(buffer, keep);
    }
}

/// Gives the free memory inside the allocator's heaps back to the system (glibc keeps a thread's
/// freed blocks resident, and gives back only what is free at the top of a heap). For a job that
/// has just dropped a lot of small allocations and goes on with others, or has ended.
pub fn give_back_free() {
    imp::give_back_free();
}

/// The smallest page size of the systems built for.
const PAGE_BYTES: usize = 4096;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod imp {
    pub(super) fn keep_big_blocks_apart(bytes: i32) {
        // SAFETY: mallopt only sets a tunable of glibc's allocator; setting M_MMAP_THRESHOLD also
        // turns its dynamic adjustment off. It fails only for values out of range (not this one).
        unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, bytes) };
    }

    pub(super) fn one_heap() {
        // SAFETY: as above; one arena is always in range.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, 1) };
    }

    /// glibc's realloc to a smaller size never moves the block: it splits a heap block, and
    /// `mremap`s a mapped one shorter in place.
    pub(super) fn shrink_in_place(buffer: &mut Vec<u8>, keep: usize) {
        buffer.shrink_to(keep);
    }

    pub(super) fn give_back_free() {
        // SAFETY: malloc_trim only releases free pages of every arena; it has no preconditions.
        unsafe { libc::malloc_trim(0) };
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod imp {
    pub(super) fn keep_big_blocks_apart(_bytes: i32) {}

    pub(super) fn one_heap() {}

    pub(super) fn shrink_in_place(_buffer: &mut Vec<u8>, _keep: usize) {}

    pub(super) fn give_back_free() {}
}
