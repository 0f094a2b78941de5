//! Unix: the process table, read whole, so claude's descendants can be found through parent links
//! whatever process group or session they put themselves in (claude starts its Bash shells with
//! `setsid`). Each process is named by its pid and its start time: a pid seen once and found again
//! with another start time is someone else's process, never to be signalled.

/// One live process as the table shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) pid: i32,
    pub(super) ppid: i32,
    pub(super) pgid: i32,
    /// When it started, in the system's own unit (clock ticks since boot on Linux, microseconds
    /// since the epoch on macOS): only compared for equality.
    pub(super) start: u64,
    /// Exited, not yet reaped: it can be neither stopped nor killed, and its children have gone.
    pub(super) zombie: bool,
}

/// Every process this user can see, in no order.
#[cfg(target_os = "linux")]
pub(super) fn snapshot() -> Vec<Entry> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(entry)
        .collect()
}

/// The process `pid` now, if it exists.
#[cfg(target_os = "linux")]
pub(super) fn entry(pid: i32) -> Option<Entry> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &text)
}

/// `/proc/<pid>/stat`: the command name sits in parentheses and may itself hold spaces or `)`, so
/// the fields are counted from the last `)`: state, ppid, pgrp, session, ..., starttime (the 22nd
/// field of the whole line, the 20th after the name).
#[cfg(any(target_os = "linux", test))]
fn parse_stat(pid: i32, text: &str) -> Option<Entry> {
    let mut fields = text[text.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    let start = fields.nth(16)?.parse().ok()?;
    Some(Entry {
        pid,
        ppid,
        pgid,
        start,
        zombie: matches!(state, "Z" | "X"),
    })
}

#[cfg(target_os = "macos")]
pub(super) fn snapshot() -> Vec<Entry> {
    // SAFETY: a null buffer asks for the number of pids.
    let count = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
    if count <= 0 {
        return Vec::new();
    }
    // Room for processes started between the two calls.
    let mut pids = vec![0 as libc::pid_t; count as usize + 64];
    let bytes = (pids.len() * size_of::<libc::pid_t>()) as libc::c_int;
    // SAFETY: the buffer holds `bytes` bytes.
    let filled = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), bytes) };
    pids.truncate(filled.max(0) as usize);
    pids.into_iter()
        .filter(|&pid| pid > 0)
        .filter_map(entry)
        .collect()
}

#[cfg(target_os = "macos")]
pub(super) fn entry(pid: i32) -> Option<Entry> {
    // SAFETY: a zeroed proc_bsdinfo is a valid out-parameter.
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = size_of::<libc::proc_bsdinfo>() as libc::c_int;
    // SAFETY: the pointer and size describe `info`.
    let got =
        unsafe { libc::proc_pidinfo(pid, libc::PROC_PIDTBSDINFO, 0, (&raw mut info).cast(), size) };
    (got == size).then(|| Entry {
        pid,
        ppid: info.pbi_ppid as i32,
        pgid: info.pbi_pgid as i32,
        start: info.pbi_start_tvsec * 1_000_000 + info.pbi_start_tvusec,
        // SZOMB in <sys/proc.h>.
        zombie: info.pbi_status == 5,
    })
}

/// Other Unixes: no table is read; the process group alone is what can be killed.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub(super) fn snapshot() -> Vec<Entry> {
    Vec::new()
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub(super) fn entry(_pid: i32) -> Option<Entry> {
    None
}

/// The live descendants of `roots` in `table` (children, grandchildren...), roots excluded.
pub(super) fn descendants(table: &[Entry], roots: &[i32]) -> Vec<Entry> {
    let mut children: std::collections::HashMap<i32, Vec<&Entry>> = Default::default();
    for entry in table {
        children.entry(entry.ppid).or_default().push(entry);
    }
    let mut seen: std::collections::HashSet<i32> = roots.iter().copied().collect();
    let mut frontier: Vec<i32> = roots.to_vec();
    let mut found = Vec::new();
    while let Some(parent) = frontier.pop() {
        for child in children.get(&parent).into_iter().flatten() {
            if seen.insert(child.pid) {
                frontier.push(child.pid);
                if !child.zombie {
                    found.push(**child);
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(pid: i32, ppid: i32) -> Entry {
        Entry {
            pid,
            ppid,
            pgid: pid,
            start: pid as u64 * 10,
            zombie: false,
        }
    }

    #[test]
    fn a_stat_line_with_a_tricky_name_parses() {
        let line = "4242 (we) ird (name)) S 4200 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        let parsed = parse_stat(4242, line).unwrap();
        assert_eq!(
            (parsed.ppid, parsed.pgid, parsed.start, parsed.zombie),
            (4200, 4242, 987654, false)
        );
        let zombie = "7 (z) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0";
        assert!(parse_stat(7, zombie).unwrap().zombie);
    }

    #[test]
    fn descendants_follow_parent_links_and_skip_zombies_and_strangers() {
        let mut zombie = e(13, 10);
        zombie.zombie = true;
        let table = [
            e(10, 1),
            e(11, 10),
            e(12, 11),
            zombie,
            e(20, 1),
            e(21, 20),
            e(30, 12),
        ];
        let mut found: Vec<i32> = descendants(&table, &[10]).iter().map(|e| e.pid).collect();
        found.sort_unstable();
        assert_eq!(found, vec![11, 12, 30]);
    }
}
