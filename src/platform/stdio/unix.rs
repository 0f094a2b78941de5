//! Unix: stdin and stdout as non-blocking pipes on tokio's reactor where they are pipes or
//! sockets; tokio's blocking stdio otherwise.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

use super::{Input, Output};

pub(super) fn stdin() -> Input {
    match Pipe::open(libc::STDIN_FILENO, Interest::READABLE) {
        Ok(pipe) => Box::pin(pipe),
        Err(_) => Box::pin(tokio::io::stdin()),
    }
}

pub(super) fn stdout() -> Output {
    match Pipe::open(libc::STDOUT_FILENO, Interest::WRITABLE) {
        Ok(pipe) => Box::pin(pipe),
        Err(_) => Box::pin(tokio::io::stdout()),
    }
}

pub(super) fn close_stdout() -> io::Result<()> {
    // SAFETY: closing a descriptor this process owns; later writes to it fail with EBADF.
    if unsafe { libc::close(libc::STDOUT_FILENO) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// A standard descriptor this process does not own: never closed here.
struct StdFd(RawFd);

impl AsRawFd for StdFd {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

/// A pipe or socket end in non-blocking mode; its original flags come back when it is dropped.
struct Pipe {
    fd: AsyncFd<StdFd>,
    original_flags: libc::c_int,
}

impl Pipe {
    fn open(fd: RawFd, interest: Interest) -> io::Result<Self> {
        // SAFETY: fstat and fcntl on a descriptor number only read or set its flags.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd, &mut stat) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let kind = stat.st_mode & libc::S_IFMT;
        // Only descriptors the editor created for us: a terminal shared with a shell must not be
        // left non-blocking behind us.
        if kind != libc::S_IFIFO && kind != libc::S_IFSOCK {
            return Err(io::Error::from(io::ErrorKind::Unsupported));
        }
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: stdin and stdout stay open for the life of the process; nothing here closes them.
        match unsafe { AsyncFd::register_with_interest(StdFd(fd), interest) } {
            Ok(fd) => Ok(Pipe {
                fd,
                original_flags: flags,
            }),
            Err(error) => {
                let (_, error) = error.into_parts();
                unsafe { libc::fcntl(fd, libc::F_SETFL, flags) };
                Err(error)
            }
        }
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        // SAFETY: restores the flags read at open on the same descriptor.
        unsafe { libc::fcntl(self.fd.as_raw_fd(), libc::F_SETFL, self.original_flags) };
    }
}

/// The result of one read(2)/write(2) call.
fn syscall_result(n: isize) -> io::Result<usize> {
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

impl AsyncRead for Pipe {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            // SAFETY: read(2) only writes initialised bytes into the slice, and only `n` of them
            // are marked filled.
            let unfilled = unsafe { buf.unfilled_mut() };
            let result = guard.try_io(|fd| {
                syscall_result(unsafe {
                    libc::read(fd.as_raw_fd(), unfilled.as_mut_ptr().cast(), unfilled.len())
                })
            });
            match result {
                Ok(Ok(n)) => {
                    unsafe { buf.assume_init(n) };
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }
}

impl AsyncWrite for Pipe {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bytes: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            let mut guard = ready!(self.fd.poll_write_ready(cx))?;
            let result = guard.try_io(|fd| {
                // SAFETY: writes from a valid slice.
                syscall_result(unsafe {
                    libc::write(fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len())
                })
            });
            match result {
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(done) => return Poll::Ready(done),
                Err(_would_block) => continue,
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
