//! This process's own standard streams, where the stand-in plays a claude that closes its stdout
//! and lives on: the reader on the other end must see end-of-file while the process runs.

use std::io;

/// Closes this process's stdout (its descriptor or handle, not just a buffered writer): the pipe's
/// reader sees end-of-file. Later writes to stdout fail.
pub fn close_stdout() -> io::Result<()> {
    imp::close_stdout()
}

#[cfg(unix)]
mod imp {
    use std::io;

    pub(super) fn close_stdout() -> io::Result<()> {
        // SAFETY: closing a descriptor this process owns; later writes to it fail with EBADF.
        if unsafe { libc::close(libc::STDOUT_FILENO) } == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

#[cfg(windows)]
mod imp {
    use std::io;
    use std::os::windows::io::AsRawHandle;

    pub(super) fn close_stdout() -> io::Result<()> {
        let handle = io::stdout().as_raw_handle();
        // SAFETY: closing the standard output handle this process owns; later writes fail.
        if unsafe { windows_sys::Win32::Foundation::CloseHandle(handle as _) } != 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}
