//! Two settings of glibc's allocator, which otherwise keeps what a node
//! frees: the node's memory is mostly model sessions and large documents,
//! allocated and freed in big pieces.

/// Allocations from this size up get pages of their own, given back as
/// soon as they are freed. glibc's default starts at 128 KiB and rises
/// after each large free up to 32 MiB, so the buffers of inference and of
/// search came to live in the heap and stayed there once freed. At 256 KiB
/// an embedding's activations (a note's attention scores and feed-forward
/// rows, a few hundred KiB to over 1 MiB each) were mapped and faulted in
/// afresh on every call: a note's store took ×1.22-1.33 of one bare
/// embedding, ×1.17-1.24 at 2 MiB. What they leave free in the heap goes
/// back to the system once the node is quiet ([`release_free_memory`],
/// called by the embedding worker): without it a node kept 230 MB after
/// 3,000 notes in one run of four, and 236-260 MB after serving 100k
/// memories, at rest too (docs/figures.md).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: i32 = 2 * 1024 * 1024;

/// Free memory at the top of the heap beyond this goes back to the system
/// at once (glibc's default is 128 KiB, but raised with the threshold above
/// when that one moves).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: i32 = 4 * 1024 * 1024;

/// Tunes glibc's allocator for the node, before any other thread exists.
///
/// Caps malloc arenas at two: glibc gives threads that allocate at once
/// arenas of their own (up to eight per core) and keeps what they free. At
/// 100k memories a node's own memory after serving was 575 MB with them and
/// 497 MB with two, at the same speed (node_bench, one run each).
///
/// Fixes the mmap and trim thresholds ([`MMAP_THRESHOLD`],
/// [`TRIM_THRESHOLD`]): at 100k memories the node's own memory right after
/// node_bench's stores and recalls fell from 547 and 507 MB to 403 and 405
/// MB (two runs each, same binary), with store and recall times unchanged.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code, reason = "mallopt is glibc's C interface")]
    // SAFETY: mallopt only tunes the allocator, and runs before any other
    // thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}

/// Gives the free pages of every arena back to the system, after a large
/// piece of memory (an offline rebuild's documents, a burst of inference)
/// was let go; without it half of that stays with the process.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code, reason = "malloc_trim is glibc's C interface")]
    // SAFETY: malloc_trim only returns free pages; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}
