//! Unix: the reaper holds copies of claude's stdio pipes, so the adapter's death does not reach
//! claude before the reaper does. When the adapter is SIGKILLed the kernel closes its ends of
//! claude's pipes and of the reaper's pipe at the same moment: without copies, claude would read
//! end-of-file and could exit first, and its shells (in sessions of their own) would be
//! reparented out of its tree before the reaper walks it. With the reaper holding a write end of
//! claude's stdin and read ends of its stdout and stderr, claude sees nothing change until the
//! reaper has frozen and killed its tree.
//!
//! Linux only: the reaper opens the adapter's own descriptors through `/proc/<adapter>/fd/<n>`
//! (same user; a pipe opened there is the same pipe), and checks each one's inode against the one
//! the adapter named, so a descriptor number reused meanwhile is never taken. Elsewhere nothing is
//! held and the reaper races claude's exit (it stops claude's group first thing).

use std::fs::File;
use std::os::fd::RawFd;

/// Which way the adapter's end of a pipe goes (and so how the reaper opens its copy).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    /// The adapter writes: claude's stdin.
    Write,
    /// The adapter reads: claude's stdout and stderr.
    Read,
}

/// ` w<fd>:<inode> r<fd>:<inode>...` for the reaper's `h<pgid>` line; empty where the
/// descriptors cannot be described.
pub(super) fn describe(ends: &[(End, Option<RawFd>)]) -> String {
    let mut text = String::new();
    for &(end, fd) in ends {
        if let Some(fd) = fd
            && let Some(inode) = inode(fd)
        {
            let mode = if end == End::Write { 'w' } else { 'r' };
            text.push_str(&format!(" {mode}{fd}:{inode}"));
        }
    }
    text
}

fn inode(fd: RawFd) -> Option<u64> {
    // SAFETY: a zeroed stat is a valid out-parameter; fstat only reads the descriptor.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    (unsafe { libc::fstat(fd, &mut stat) } == 0).then_some(stat.st_ino as u64)
}

/// The reaper's copies of the pipes `spec` (from [`describe`]) names, opened from the adapter
/// `adapter`'s descriptors; those that cannot be opened or are not the same pipe are left out.
pub(super) fn open(adapter: i32, spec: &str) -> Vec<File> {
    spec.split_whitespace()
        .filter_map(|item| {
            let (mode, rest) = item.split_at_checked(1)?;
            let (fd, inode_named) = rest.split_once(':')?;
            let (fd, inode_named): (RawFd, u64) = (fd.parse().ok()?, inode_named.parse().ok()?);
            let file = open_copy(adapter, fd, mode == "w")?;
            let same = inode(std::os::fd::AsRawFd::as_raw_fd(&file)) == Some(inode_named);
            same.then_some(file)
        })
        .collect()
}

#[cfg(target_os = "linux")]
fn open_copy(adapter: i32, fd: RawFd, write: bool) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking: opening a pipe's end waits for the other end otherwise (it is there anyway).
    std::fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(format!("/proc/{adapter}/fd/{fd}"))
        .ok()
}

#[cfg(not(target_os = "linux"))]
fn open_copy(_adapter: i32, _fd: RawFd, _write: bool) -> Option<File> {
    None
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;

    #[test]
    fn a_copy_of_a_pipe_keeps_it_open_and_a_wrong_inode_is_refused() {
        let (mut reader, writer) = std::io::pipe().unwrap();
        let spec = describe(&[(End::Write, Some(writer.as_raw_fd()))]);
        let copies = open(std::process::id() as i32, &spec);
        assert_eq!(copies.len(), 1, "{spec}");
        drop(writer);
        // The copy still holds the write end: the reader sees data, not end-of-file.
        let mut copy = &copies[0];
        copy.write_all(b"x").unwrap();
        let mut byte = [0u8; 1];
        assert_eq!(reader.read(&mut byte).unwrap(), 1);
        let wrong = spec.replace(':', ":1");
        assert!(open(std::process::id() as i32, &wrong).is_empty());
        drop(copies);
        assert_eq!(
            reader.read(&mut byte).unwrap(),
            0,
            "end-of-file once the copy goes"
        );
    }
}
