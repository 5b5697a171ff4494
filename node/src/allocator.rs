//! Two settings of glibc's allocator, which otherwise keeps what a node
//! frees: the node's memory is mostly model sessions and large documents,
//! allocated and freed in big pieces.

/// Caps glibc's malloc arenas at two. glibc gives threads that allocate at
/// once arenas of their own (up to eight per core) and keeps what they free:
/// at 100k memories a node's own memory after serving was 575 MB with them
/// and 497 MB with two, at the same speed (node_bench, one run each).
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code, reason = "mallopt is glibc's C interface")]
    // SAFETY: mallopt only tunes the allocator, and runs before any other
    // thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

/// Gives the free pages of every arena back to the system, after a large
/// piece of memory (the background model session) was let go; without it
/// half of that stays with the process.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code, reason = "malloc_trim is glibc's C interface")]
    // SAFETY: malloc_trim only returns free pages; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}
