//! A monotonic clock that reads the same in every process on the machine, so timestamps taken in
//! two processes (the benchmark and the stand-in it drives) can be subtracted. `Instant` does not
//! promise that.

/// Nanoseconds since an arbitrary, machine-wide origin: `CLOCK_MONOTONIC` on Unix, the performance
/// counter on Windows.
pub fn monotonic_ns() -> u64 {
    imp::monotonic_ns()
}

#[cfg(unix)]
mod imp {
    pub(crate) fn monotonic_ns() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes into the timespec we own; CLOCK_MONOTONIC exists on every Unix.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }
}

#[cfg(windows)]
mod imp {
    use windows_sys::Win32::System::Performance::{
        QueryPerformanceCounter, QueryPerformanceFrequency,
    };

    pub(crate) fn monotonic_ns() -> u64 {
        let (mut count, mut frequency) = (0i64, 0i64);
        // SAFETY: both write into integers we own; they cannot fail since Windows XP.
        unsafe {
            QueryPerformanceCounter(&mut count);
            QueryPerformanceFrequency(&mut frequency);
        }
        (count as u128 * 1_000_000_000 / frequency.max(1) as u128) as u64
    }
}
