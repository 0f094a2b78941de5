//! A private network namespace with only loopback, shared by the mock API and the processes a test spawns.
//!
//! Why this shape: a TCP socket belongs to the network namespace of the thread that created it, and a
//! namespace is per thread on Linux. So the mock API's server thread moves itself into a fresh namespace
//! (`unshare(CLONE_NEWNET)`), brings `lo` up and binds there; spawned processes join the same namespace
//! with `setns` between fork and exec. The rest of the test process stays in the host namespace, and
//! nothing claude does can leave the machine. Needs CAP_SYS_ADMIN; where it is missing, callers fall back
//! to the host loopback (see [`IsolatedNet::enter_on_this_thread`]).

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Arc;

/// A handle on a network namespace that holds it alive while processes may still be spawned into it.
#[derive(Clone, Debug)]
pub struct IsolatedNet {
    ns: Arc<OwnedFd>,
}

impl IsolatedNet {
    /// Moves the calling thread into a new network namespace with `lo` up and returns a handle on it.
    ///
    /// Call it only on a thread you own (never a tokio worker): the thread stays in the namespace.
    pub fn enter_on_this_thread() -> io::Result<IsolatedNet> {
        // SAFETY: plain syscall; CLONE_NEWNET affects only the calling thread.
        if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
            return Err(io::Error::last_os_error());
        }
        bring_loopback_up()?;
        let ns: OwnedFd = File::open("/proc/thread-self/ns/net")?.into();
        Ok(IsolatedNet { ns: Arc::new(ns) })
    }

    /// Runs `work` on a short-lived thread inside this namespace (e.g. to connect to the mock from a
    /// test) and returns its result; sockets it creates stay in the namespace.
    pub fn run_inside<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> io::Result<T> {
        let ns = Arc::clone(&self.ns);
        std::thread::spawn(move || {
            // SAFETY: setns(2) on a namespace fd we hold; it moves only this new thread.
            if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(work())
        })
        .join()
        .map_err(|_| io::Error::other("thread inside the namespace panicked"))?
    }

    /// Makes `command` start its process inside this namespace (its children inherit it).
    pub fn apply(&self, command: &mut tokio::process::Command) {
        let ns = Arc::clone(&self.ns);
        // SAFETY: the closure runs between fork and exec and only calls setns(2), which is
        // async-signal-safe; it allocates nothing.
        unsafe {
            command.pre_exec(move || {
                if libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

/// `ip link set lo up`, without needing the `ip` tool.
fn bring_loopback_up() -> io::Result<()> {
    // SAFETY: a datagram socket used only as an ioctl handle; `ifreq` is plain old data.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut request: libc::ifreq = std::mem::zeroed();
        for (slot, byte) in request.ifr_name.iter_mut().zip(b"lo\0") {
            *slot = *byte as libc::c_char;
        }
        let mut result = libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut request);
        if result == 0 {
            request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            result = libc::ioctl(fd, libc::SIOCSIFFLAGS, &request);
        }
        let error = io::Error::last_os_error();
        libc::close(fd);
        if result != 0 {
            return Err(error);
        }
    }
    Ok(())
}
